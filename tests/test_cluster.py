"""Chapter 11e with its `#| slow` cells: the Ray checks (a local Ray instance on 127.0.0.1, started by the notebook).

nbdev_test and nbval skip those cells, so the notebook's cheap cells run there and the whole chapter runs here, once."""
import os
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / "nbs" / "11e_cluster.ipynb"


def test_cluster_chapter_with_ray():
    "Ray and local rows agree, a killed worker's run ends as an uninterrupted one, a second driver is refused."
    pytest.importorskip("ray")
    pytest.importorskip("tensorboard")
    from nbdev.test import test_nb
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ok, seconds = test_nb(NB, skip_flags=["notest", "compile", "gpu"], force_flags=["slow"])
    print(f"{NB.name} with its slow cells: {seconds:.0f} s")
    assert ok, f"{NB.name} failed with its slow cells (the error is above)"
