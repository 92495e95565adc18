"""Each game's ``RowsJob`` is its batch kernel's arguments, in their order:
``run_rows`` hands the job's fields to the kernel by position."""

import inspect

import pytest

from simkit.burraco import kernel as burraco
from simkit.pepper import kernel as pepper
from simkit.pitch import kernel as pitch


def _params(kernel) -> list[str]:
    return list(inspect.signature(kernel.py_func).parameters)


@pytest.mark.parametrize(("kernel", "before", "after"), [
    (pepper._lane, ["lane", "n_lanes", "n_blocks", "size"], ["whole"]),
    (pepper._lanes, ["lo", "hi", "n_lanes", "n_blocks", "size"], ["whole"]),
    (pitch._block, ["b"], []),
    (pitch._lanes, ["lo", "hi"], []),
    (burraco._lanes, ["lo", "hi"], []),
])
def test_rows_job_fields_are_the_kernel_arguments(kernel, before, after):
    job = inspect.getmodule(kernel.py_func).RowsJob
    assert _params(kernel) == [*before, *job._fields, *after]
