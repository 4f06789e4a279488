"""Regenerate the sample files of this folder (run from the repository root).

Every card-level sample is real dealing: seeded shoes shuffled and dealt by
``baccarat.deal.generate_coups`` under the default 8-deck rules, then written out the way a
recorder would have written them. ``generated-8deck-200.parquet`` is made by the CLI:

    baccarat generate --shoes 200 --seed 2026 --decks 8 --out data/generated-8deck-200.parquet

Usage: python data/make_samples.py
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from baccarat.coups import Coups
from baccarat.deal import generate_coups
from baccarat.io.importers import writers
from baccarat.rules import TableRules

HERE = Path(__file__).resolve().parent
SEED = 2026
RULES = TableRules.model_validate({})


def dealt(first: int, shoes: int, names: str = "shoe-{}") -> Coups:
    """Shoes ``first .. first + shoes - 1`` of SEED, labelled from 1 within the file."""
    coups = generate_coups(RULES, SEED, np.arange(first, first + shoes))
    coups.label = np.array([names.format(s - first + 1) for s in coups.shoe], dtype=object)
    return coups


def scorecard() -> None:
    """Four shoes, in every scorecard spelling: labelled strings, labelled comma-separated
    letters, words, and a bare unlabelled string."""
    coups = dealt(100, 4)
    letters = np.array(["B", "P", "T"])[coups.outcome]
    words = np.array(["Banker", "player", "TIE"])[coups.outcome]
    rows = [np.flatnonzero(coups.shoe == s) for s in np.unique(coups.shoe)]
    lines = [
        "# outcome scorecard: one shoe per line (see data/README.md)",
        "shoe-1: " + "".join(letters[rows[0]]),
        "shoe-2," + ",".join(letters[rows[1]]),
        "shoe-3: " + ", ".join(words[rows[2]]),
        "".join(letters[rows[3]]),
    ]
    (HERE / "scorecard.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


NAMES = {0: "Banker", 1: "Player", 2: "Tie"}


def _state_line(stamp: str, table: str, records: list[str]) -> str:
    return (f'[{stamp}] {{"type": "baccarat.history", "args": {{"tableId": "{table}", '
            f'"history_v2": [{", ".join(records)}]}}}}')


def message_logs() -> None:
    """Two hourly logs of a live table's messages that overlap: the client joined late in
    shoe 1 (its last 12 states), then followed shoe 2; the second log repeats the end of
    the first. Connection lines and chat between the messages."""
    coups = dealt(700, 2)
    records = [json.dumps({"winner": NAMES[int(coups.outcome[k])],
                           "playerScore": int(coups.player_total[k]),
                           "bankerScore": int(coups.banker_total[k])}) for k in range(len(coups))]
    first = np.flatnonzero(coups.shoe == coups.shoe[0])
    second = np.flatnonzero(coups.shoe != coups.shoe[0])
    clock = iter(f"08:{m:02d}:{s:02d}" for m in range(1, 60) for s in range(0, 60, 20))
    lines = ["[08:00:00] connecting to wss://live.example/table/T3 ...", "[08:00:01] connected"]
    for n in range(len(first) - 11, len(first) + 1):
        lines.append(_state_line(next(clock), "T3", records[:n]))
        if n % 5 == 0:
            lines.append(f'[{next(clock)}] {{"type": "chat", "args": {{"text": "gl"}}}}')
    lines.append(f"[{next(clock)}] shuffling")
    for n in range(1, 21):
        lines.append(_state_line(next(clock), "T3", records[len(first):len(first) + n]))
    (HERE / "live-table-08.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    clock = iter(f"09:{m:02d}:{s:02d}" for m in range(60) for s in range(0, 60, 20))
    lines = ["[09:00:00] reconnected"]
    for n in range(18, 41):  # the log ends with the hour, in the middle of shoe 2
        lines.append(_state_line(next(clock), "T3", records[len(first):len(first) + n]))
    (HERE / "live-table-09.log").write_text("\n".join(lines) + "\n", encoding="utf-8")


def result_log() -> None:
    """A shoe's single coup results with the cards, behind ISO timestamps and levels."""
    coups = dealt(710, 1)
    text = writers.card_text(coups.cards)
    lines = ["2025-08-09T08:46:00Z INFO session started"]
    for k in range(len(coups)):
        stamp = f"2025-08-09T{8 + k // 60:02d}:{k % 60:02d}:12Z"
        message = {"event": "game.result", "data": {
            "round": k + 1, "result": {"winner": NAMES[int(coups.outcome[k])]},
            "playerHand": {"cards": [c for c in text[k, :3] if c]},
            "bankerHand": {"cards": [c for c in text[k, 3:] if c]}}}
        lines.append(f"{stamp} INFO {json.dumps(message)}")
        if k % 9 == 4:
            lines.append(f'{stamp} DEBUG {{"event": "bet.placed", "data": {{"amount": 25}}}}')
    (HERE / "results.log").write_text("\n".join(lines) + "\n", encoding="utf-8")


def nested_json() -> None:
    """A scraper's API answer: the coups under data.results, nested objects per hand."""
    coups = dealt(720, 1)
    text = writers.card_text(coups.cards)
    results = [{"round": k + 1,
                "gameData": {"playerHand": {"cards": [c for c in text[k, :3] if c],
                                            "score": int(coups.player_total[k])},
                             "bankerHand": {"cards": [c for c in text[k, 3:] if c],
                                            "score": int(coups.banker_total[k])}},
                "result": {"winner": NAMES[int(coups.outcome[k])]}}
               for k in range(len(coups))]
    document = {"status": "ok", "data": {"tableId": "T7", "dealer": "Mai",
                                         "results": results},
                "players": [{"name": "ann", "seat": 2}, {"name": "bo", "seat": 5}]}
    (HERE / "history.json").write_text(json.dumps(document, indent=1, ensure_ascii=False)
                                       + "\n", encoding="utf-8")


def labelled_scorecards() -> None:
    """Scorecard lines as people keep them: labels after or before the outcomes, tabs,
    Chinese characters, Vietnamese words."""
    coups = dealt(730, 5)
    rows = [np.flatnonzero(coups.shoe == s) for s in np.unique(coups.shoe)]
    letters = np.array(["B", "P", "T"])[coups.outcome]
    chinese = np.array(["莊", "閒", "和"])[coups.outcome]
    vietnamese = np.array(["Cái", "Con", "Hòa"])[coups.outcome]
    lines = [
        "".join(letters[rows[0]]) + "|2026-04-06T00:25:57+09:00",
        "2026-04-06 01:40 | " + "".join(letters[rows[1]]),
        "2026-04-06 02:55\t" + "".join(letters[rows[2]]),
        "桌3 " + "".join(chinese[rows[3]]),
        "bàn 5: " + ", ".join(vietnamese[rows[4]]),
    ]
    (HERE / "scorecards-labelled.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def one_column_and_vietnamese() -> None:
    """One column of outcome words under a header of its own; a Vietnamese sheet with a
    road-colour column (its headers need --column)."""
    coups = dealt(740, 1)
    words = np.array(["Banker", "Player", "Tie"])[coups.outcome]
    (HERE / "winning-outcome.csv").write_text(
        "Winning Outcome\n" + "\n".join(words) + "\n", encoding="utf-8")
    coups = dealt(750, 1)
    names = np.array(["Nhà cái", "Người chơi", "Hòa"])[coups.outcome]
    colours = np.array(["紅", "藍", ""])[coups.outcome]
    rows = [f"{k + 1},{names[k]},{colours[k]}" for k in range(len(coups))]
    (HERE / "ket-qua.csv").write_text("Ván,Kết quả,Màu\n" + "\n".join(rows) + "\n",
                                      encoding="utf-8")


def titled_log() -> None:
    """A sheet with a title line (and a blank one) above its header, as a spreadsheet
    saved as CSV keeps it."""
    coups = dealt(900, 2)
    letters = np.array(["B", "P", "T"])[coups.outcome]
    shoe = coups.shoe - coups.shoe.min() + 1
    rows = [f"{shoe[k]},{coups.coup[k]},{letters[k]}" for k in range(len(coups))]
    (HERE / "titled-log.csv").write_text(
        "Mesa 4 - noche del 3 de diciembre, 2026\n\nshoe,coup,result\n" + "\n".join(rows)
        + "\n", encoding="utf-8")


def scoreboard_and_spanish() -> None:
    """A chat bot's scoreboard of coloured circles (the second shoe with emoji variation
    selectors), and a tab-separated sheet kept in Spanish."""
    circles = np.array(["\U0001F534", "\U0001F535", "\U0001F7E2"])
    first, second = dealt(800, 1), dealt(801, 1)
    (HERE / "bot-scoreboard.txt").write_text(
        "shoe 1: " + "".join(circles[first.outcome]) + "\n"
        + "shoe 2: " + "".join(c + "\ufe0f" for c in circles[second.outcome]) + "\n",
        encoding="utf-8")
    rows = []
    for shoe in (1, 2):
        coups = dealt(810 + shoe - 1, 1)
        words = np.array(["Banca", "Jugador", "Empate"])[coups.outcome]
        rows += [f"{shoe}\t{k + 1}\t{words[k]}" for k in range(len(coups))]
    (HERE / "mesa.tsv").write_text("Zapato\tMano\tGanador\n" + "\n".join(rows) + "\n",
                                   encoding="utf-8")


def interleaved_tables() -> None:
    """Two tables logged in time order: their rows interleave."""
    a, b = dealt(760, 1), dealt(770, 1)
    rows = []
    for k in range(max(len(a), len(b))):
        for table, coups, shoe in (("A", a, 41), ("B", b, 17)):
            if k < len(coups):
                rows.append(f"2026-03-0{1} 21:{k // 2:02d}:{30 * (k % 2):02d},{table},{shoe},"
                            f"{k + 1},{NAMES[int(coups.outcome[k])].lower()},"
                            f"{int(coups.player_total[k])},{int(coups.banker_total[k])}")
    (HERE / "tables-interleaved.csv").write_text(
        "time,table,shoe,round_no,game_outcome,player_score,banker_score\n"
        + "\n".join(rows) + "\n", encoding="utf-8")


def spreadsheet_and_database() -> None:
    """A hand-kept workbook (a notes sheet, then the shoe) and a scraper's database."""
    writers.write_xlsx(dealt(780, 2), HERE / "scorecard.xlsx", "hands", sheet="Shoes",
                       coup=True)
    path = HERE / "scraper.sqlite"
    path.unlink(missing_ok=True)
    writers.write_sqlite(dealt(790, 2), path, "cards", coup=True)


def slips() -> None:
    """A recorded shoe with a recorder's slips: a hand of four cards, a row with only a
    total, and a coup missing (numbers 1, 2, 4...)."""
    coups = dealt(800, 1)
    frame = writers.coups_frame(coups, "hands", coup=True)
    row = next(k for k in range(4, len(frame)) if frame.loc[k, "player"].count("-") == 2)
    frame.loc[row, "player"] = frame.loc[row, "player"] + "-2C"  # a fourth card noted
    frame = frame.drop(index=9)
    lines = frame.to_csv(index=False).splitlines()
    lines.insert(12, "shoe-1,,,,6,,")  # a total written down, the rest of the row lost
    (HERE / "slips.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def content_shapes() -> None:
    """The shapes only content tells apart (issue 23): two columns for one field, totals
    under the hand's name beside the cards, a model's scores inside an export, a message
    that is one coup, a chat bot's lists of shoes, a scorecard per row, a coup's cards in
    one list."""
    coups = dealt(900, 2)
    path = HERE / "two-outcome-columns.sqlite"
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, shoe_id INT, game_no INT, "
                   "winner TEXT, game_result TEXT, player_score INT, banker_score INT)")
        start = 0
        rows = []
        for k in range(len(coups)):
            if k and coups.shoe[k] != coups.shoe[k - 1]:
                start = k
            rows.append((k + 1, int(coups.shoe[k]) - 899, k - start + 1,
                         NAMES[int(coups.outcome[k])].upper(),
                         "BPT"[int(coups.outcome[k])], int(coups.player_total[k]),
                         int(coups.banker_total[k])))
        db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    db.close()
    coups = dealt(910, 1)
    text = writers.card_text(coups.cards)
    lines = ["Ván,player,banker,player cards,banker cards,Kết quả,ghi chú"]
    for k in range(len(coups)):
        note = "đổi bài" if k == 20 else ""
        lines.append(f"{k + 1},{coups.player_total[k]},{coups.banker_total[k]},"
                     f"{' '.join(c for c in text[k, :3] if c)},"
                     f"{' '.join(c for c in text[k, 3:] if c)},"
                     f"{['Cái', 'Con', 'Hòa'][int(coups.outcome[k])]},{note}")
    (HERE / "hand-kept.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    coups = dealt(920, 1)
    text = writers.card_text(coups.cards)
    rounds = [{"roundId": f"r-{9200 + k}", "ts": f"2026-02-11T21:{k // 2:02d}:{30 * (k % 2):02d}Z",
               "outcome": NAMES[int(coups.outcome[k])].upper(),
               "playerCards": [c for c in text[k, :3] if c],
               "bankerCards": [c for c in text[k, 3:] if c],
               "diagnostics": {"latencyMs": 40 + k % 7, "sourceScores": {
                   "beadRoad": {"banker": round(0.45 + (k % 5) / 100, 2), "player": 0.44},
                   "bigRoad": {"banker": round(0.47 + (k % 3) / 100, 2), "player": 0.45}}}}
              for k in range(len(coups))]
    (HERE / "export-diagnostics.json").write_text(json.dumps(
        {"exportedAt": "2026-02-12T00:00:00Z", "table": {"id": "bac-07", "rounds": rounds}},
        indent=1) + "\n", encoding="utf-8")
    coups = dealt(930, 1)
    text = writers.card_text(coups.cards)
    state = {"type": "baccarat.gameState", "id": "1739307501.17",
             "args": {"tableId": "pwnhicogrzeodkej", "gameId": "18f2a0c9",
                      "gameData": {"playerHand": {"cards": [c for c in text[0, :3] if c],
                                                  "score": int(coups.player_total[0])},
                                   "bankerHand": {"cards": [c for c in text[0, 3:] if c],
                                                  "score": int(coups.banker_total[0])},
                                   "result": {"winner": NAMES[int(coups.outcome[0])]},
                                   "multipliers": [{"result": "Player", "multiplier": 2},
                                                   {"result": "Banker", "multiplier": 1.95},
                                                   {"result": "Tie", "multiplier": 9}]}}}
    (HERE / "game-state.json").write_text(json.dumps(state, indent=2) + "\n",
                                          encoding="utf-8")
    first, second = dealt(940, 1), dealt(941, 1)
    glyphs = np.array(["莊", "閒", "和"], dtype=object)
    (HERE / "bot-shoes.json").write_text(json.dumps(
        {"chat": -100183, "saved": [list(glyphs[first.outcome]), list(glyphs[second.outcome])]},
        ensure_ascii=False) + "\n", encoding="utf-8")
    coups = dealt(950, 3)
    letters = np.array(["B", "P", "T"])[coups.outcome]
    lines = ["table,shoe,sequence"]
    for i, s in enumerate(np.unique(coups.shoe)):
        lines.append(f"T3,T3-{i + 1},{''.join(letters[coups.shoe == s])}")
    (HERE / "shoe-per-row.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    coups = dealt(960, 1)
    text = writers.card_text(coups.cards)
    lines = ["hand,cards,player_total,banker_total"]
    for k in range(len(coups)):
        cards = [c for c in text[k, :3] if c] + [c for c in text[k, 3:] if c]
        lines.append(f'{k + 1},"{",".join(cards)}",{coups.player_total[k]},'
                     f"{coups.banker_total[k]}")
    (HERE / "coup-cards.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def third_round() -> None:
    """The shapes of issue 35: a CSV read only by a real CSV parser (a byte-order mark,
    header names quoted over two lines, a note with a quoted comma and doubled quotes),
    with Chinese outcomes and road colours in two languages; a database of four tables of
    which one holds the coups; a live hand whose cards are objects; an analyzer's hands
    with all cards in one list (some without cards); compound result words; integer
    codes."""
    coups = dealt(970, 1)
    text = writers.card_text(coups.cards)
    glyphs = ["莊", "閒", "和"]
    colours = [["red", "blue", "green"], ["紅", "藍", "綠"]]
    lines = ['局,"player\ncards","banker\ncards",結果,"road\ncolour",note']
    for k in range(len(coups)):
        o = int(coups.outcome[k])
        note = '"squeeze, slow ""peek"" on the third card"' if k == 5 else ""
        lines.append(f"{k + 1},{' '.join(c for c in text[k, :3] if c)},"
                     f"{' '.join(c for c in text[k, 3:] if c)},{glyphs[o]},"
                     f"{colours[k % 2][o]},{note}")
    (HERE / "road-colours.csv").write_text("\ufeff" + "\r\n".join(lines) + "\r\n",
                                           encoding="utf-8")

    coups = dealt(975, 1)
    text = writers.card_text(coups.cards)
    path = HERE / "games-and-alerts.sqlite"
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE alerts (id INTEGER PRIMARY KEY, seen TEXT, pattern TEXT, "
                   "side TEXT)")
        db.execute("CREATE TABLE cache (key TEXT, value TEXT)")
        db.execute("CREATE TABLE streaks (side TEXT, length INT)")
        db.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, game_no INT, winner TEXT, "
                   "player_cards TEXT, banker_cards TEXT, player_total INT, "
                   "banker_total INT, player_pair INT, banker_pair INT)")
        rows = []
        for k in range(len(coups)):
            p = [c for c in text[k, :3] if c]
            b = [c for c in text[k, 3:] if c]
            rows.append((k + 1, k + 1, NAMES[int(coups.outcome[k])], " ".join(p),
                         " ".join(b), int(coups.player_total[k]), int(coups.banker_total[k]),
                         int(p[0][:-1] == p[1][:-1]), int(b[0][:-1] == b[1][:-1])))
        db.executemany("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT INTO alerts (seen, pattern, side) VALUES (?, ?, ?)",
                       [(f"2026-03-0{d}T20:00:00Z", "BBBB", "Banker") for d in range(1, 6)]
                       + [("2026-03-06T20:00:00Z", "PPPP", "Player")])
        db.executemany("INSERT INTO cache VALUES (?, ?)",
                       [("last_winner", "Banker"), ("last_page", "7")])
        db.executemany("INSERT INTO streaks VALUES (?, ?)",
                       [("Banker", 4), ("Player", 3), ("Banker", 5), ("Tie", 1),
                        ("Player", 2), ("Banker", 3)])
    db.close()

    coups = dealt(980, 1)
    text = writers.card_text(coups.cards)
    value = {"A": 1, **{str(v): v for v in range(2, 10)}}

    def card(c: str) -> dict[str, object]:
        return {"card": c, "value": value.get(c[:-1], 0)}

    hands = [{"hand": k + 1, "winner": NAMES[int(coups.outcome[k])],
              "player": {"cards": [card(c) for c in text[k, :3] if c],
                         "score": int(coups.player_total[k])},
              "banker": {"cards": [card(c) for c in text[k, 3:] if c],
                         "score": int(coups.banker_total[k])}}
             for k in range(len(coups))]
    (HERE / "live-hands.json").write_text(json.dumps(
        {"type": "table.state", "tableId": "vip-3", "dealer": {"name": "Mai"},
         "hands": hands}, indent=1) + "\n", encoding="utf-8")

    coups = dealt(985, 1)
    text = writers.card_text(coups.cards)
    path = HERE / "analyzer.sqlite"
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE hands (id INTEGER PRIMARY KEY, result TEXT, cards TEXT)")
        db.executemany("INSERT INTO hands VALUES (?, ?, ?)", [
            (k + 1, "BPT"[int(coups.outcome[k])],
             "" if k % 9 == 4 else json.dumps([c for c in text[k, :3] if c]
                                              + [c for c in text[k, 3:] if c]))
            for k in range(len(coups))])
    db.close()

    coups = dealt(990, 1)
    text = writers.card_text(coups.cards)
    lines = ["round,result"]
    for k in range(len(coups)):
        o, pt, bt = int(coups.outcome[k]), int(coups.player_total[k]), int(coups.banker_total[k])
        word = ["banker", "player", "tie"][o]
        if o == 0 and bt == 6:
            word += "Super6"
        elif max(pt, bt) >= 8 and len([c for c in text[k] if c]) == 4:
            word += "Natural"
        elif k % 7 == 3:
            word += "Pair"
        lines.append(f"{k + 1},{word}")
    (HERE / "result-words.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")

    coups = dealt(995, 1)
    codes = {0: 2, 1: 1, 2: 3}  # the user's mapping: 1=P, 2=B, 3=T
    lines = ["game,res"] + [f"{k + 1},{codes[int(coups.outcome[k])]}"
                            for k in range(len(coups))]
    (HERE / "coded-results.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def session_ledger() -> None:
    """A player's session log as a tracking app exports it, in Japanese: two sessions of
    a shoe each, every hand with the bets placed on it and how they came out beside the
    coup (the first session's hands with both hands' cards and totals, the second's with
    the winner only), the balance after it. The bets name a side too (バンカー, プレイヤー,
    タイ): they are no coups."""
    sides = ["バンカー", "プレイヤー", "タイ"]
    balance = 20000
    sessions = []
    for number, first in enumerate((1010, 1011), 1):
        coups = dealt(first, 1)
        text = writers.card_text(coups.cards)
        start = balance
        hands: list[dict[str, object]] = []
        for k in range(len(coups)):
            o = int(coups.outcome[k])
            bets: list[dict[str, object]] = []
            if k % 4 != 3:  # the player sits every fourth hand out
                side, stake = (k // 3) % 2, 100 * (1 + k % 3)
                won = stake * 95 // 100 if side == 0 else stake
                net = 0 if o == 2 else won if o == side else -stake  # a tie pushes
                bets.append({"賭け": sides[side], "金額": stake,
                             "結果": ["負け", "勝ち", "引き分け"][(net > 0) + 2 * (o == 2)]})
                balance += net
                if k % 10 == 0:
                    bets.append({"賭け": "タイ", "金額": 50, "結果": "勝ち" if o == 2 else "負け"})
                    balance += 400 if o == 2 else -50
            hand: dict[str, object] = {"番号": k + 1}
            if number == 1:
                for j, name in enumerate(["プレイヤー", "バンカー"]):
                    hand[name] = {"カード": [c for c in text[k, 3 * j:3 * j + 3] if c],
                                  "合計": int((coups.player_total, coups.banker_total)[j][k])}
            hand.update({"勝者": sides[o], "ベット": bets, "残高": balance})
            hands.append(hand)
        head = json.dumps({"開始": f"2026-03-{13 + number}T20:00:00+09:00",
                           "テーブル": "バカラ 3", "開始残高": start}, ensure_ascii=False)
        sessions.append(head[:-1] + ', "ハンド": [\n' + ",\n".join(
            "   " + json.dumps(hand, ensure_ascii=False) for hand in hands) + "\n  ]}")
    (HERE / "session-ledger.json").write_text(
        '{"アプリ": "バカラ収支ノート", "書き出し": "2026-03-16T01:10:00+09:00",\n'
        ' "セッション": [\n  ' + ",\n  ".join(sessions) + "\n ]}\n", encoding="utf-8")


def bit_results() -> None:
    """A table's API scraped to CSV: two shoes whose results are whole numbers packing the
    winner in bits 0-1 (1 Banker, 2 Player, 3 Tie), a player pair in bit 2, a banker pair
    in bit 3 and a natural in bit 4 (17: Banker on a natural); read with --bits
    winner=0-1:1=B,2=P,3=T,player_pair=2,banker_pair=3,natural=4."""
    coups = dealt(1020, 2)
    text = writers.card_text(coups.cards)
    lines = ["round_id,shoe,hand,result"]
    for k in range(len(coups)):
        player, banker = text[k, :3], text[k, 3:]
        natural = len([c for c in text[k] if c]) == 4 and max(
            int(coups.player_total[k]), int(coups.banker_total[k])) >= 8
        code = ((1, 2, 3)[int(coups.outcome[k])] | (player[0][:-1] == player[1][:-1]) << 2
                | (banker[0][:-1] == banker[1][:-1]) << 3 | natural << 4)
        shoe = int(coups.shoe[k]) - 1019
        hand = k + 1 - int(np.flatnonzero(coups.shoe == coups.shoe[k])[0])
        lines.append(f"{880_412_000 + 7 * k},{shoe},{hand},{code}")
    (HERE / "result-bits.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


def big_road() -> None:
    """A casino lobby's big road: cells with a column and a row, a colour (red Banker,
    blue Player), the ties marked on each cell, natural and pair flags, listed row by row
    as a grid is dumped (not in the order they were played). The shoe is the first from
    1000 on whose streaks all fit six rows and that does not open on a tie."""
    first = 1000
    while True:
        coups = dealt(first, 1)
        o = coups.outcome.tolist()
        cells: list[dict[str, object]] = []
        for k, outcome in enumerate(o):
            if outcome == 2:
                if cells:
                    cells[-1]["ties"] = int(cells[-1]["ties"]) + 1  # type: ignore[call-overload]
                    continue
                break
            same = cells and cells[-1]["colour"] == ("red" if outcome == 0 else "blue")
            col = int(cells[-1]["col"]) + (0 if same else 1) if cells else 0  # type: ignore[call-overload]
            row = int(cells[-1]["row"]) + 1 if same else 0  # type: ignore[call-overload]
            if row > 5:
                break
            cards = [c for c in coups.cards[k] if c >= 0]
            cells.append({"col": col, "row": row, "colour": "red" if outcome == 0 else "blue",
                          "ties": 0, "natural": len(cards) == 4 and max(
                              int(coups.player_total[k]), int(coups.banker_total[k])) >= 8,
                          "bankerPair": False, "playerPair": False})
        else:
            break
        first += 1
    grid = sorted(cells, key=lambda c: (c["row"], c["col"]))  # type: ignore[return-value]
    (HERE / "big-road.json").write_text(json.dumps(
        {"table": "Baccarat B", "shoe": first, "roads": {"bigRoad": grid},
         "stats": {"banker": o.count(0), "player": o.count(1), "tie": o.count(2)}},
        indent=1) + "\n", encoding="utf-8")


def main() -> None:
    """Write every sample file."""
    third_round()
    big_road()
    session_ledger()
    bit_results()
    content_shapes()
    message_logs()
    result_log()
    nested_json()
    labelled_scorecards()
    one_column_and_vietnamese()
    scoreboard_and_spanish()
    titled_log()
    interleaved_tables()
    spreadsheet_and_database()
    slips()
    scorecard()
    writers.write_csv(dealt(200, 3), HERE / "outcomes.csv", "outcomes", words=True,
                      coup=True)
    writers.write_csv(dealt(300, 3), HERE / "coups-cards.csv", "cards", missing="NA",
                      coup=True)
    writers.write_csv(dealt(400, 3), HERE / "coups-hands.csv", "hands", totals=False)
    writers.write_json(dealt(500, 3), HERE / "coups.json")
    sequences = dealt(600, 3)
    writers.write_sequences(writers.dealing_order(sequences), HERE / "sequences.txt",
                            labels=["shoe-1", "shoe-2", "shoe-3"])


if __name__ == "__main__":
    main()
