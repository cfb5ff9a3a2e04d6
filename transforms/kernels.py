"""The one way numba kernels are compiled: `numba.njit` behind a typed decorator (mypy cannot see numba's types)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])


def kernel(*, cache: bool = True, **options: Any) -> Callable[[F], F]:
    """Compile a function with `numba.njit(cache=cache, **options)`, keeping its Python signature for mypy."""

    def compile_(function: F) -> F:
        compiled: F = numba.njit(cache=cache, **options)(function)
        return compiled

    return compile_
