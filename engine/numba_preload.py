"""Imported by a worker pool's fork server (``baccarat.parallel``): numba set up once there,
so the workers forked from it do not each spend half a second setting it up again."""

from .jit import prepare_numba

prepare_numba()
