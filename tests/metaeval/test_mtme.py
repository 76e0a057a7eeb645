import numpy as np
import pytest

from humeval.errors import InputError
from humeval.data.readers.mtme import read_mtme


@pytest.fixture
def root(tmp_path):
    for d in ("sources", "references", "system-outputs/de-en", "human-scores", "metric-scores/de-en"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "sources/de-en.txt").write_text("eins\nzwei\n")
    (tmp_path / "references/de-en.refA.txt").write_text("one\ntwo\n")
    (tmp_path / "system-outputs/de-en/sysX.txt").write_text("one\nthree\n")
    (tmp_path / "system-outputs/de-en/sysY.txt").write_text("uno\ntwo\n")
    (tmp_path / "human-scores/de-en.wmt-z.sys.score").write_text("sysX 0.5\nsysY None\n")
    (tmp_path / "human-scores/de-en.mqm.seg.score").write_text("sysX -1\nsysX None\nsysY 0\nsysY -5\n")
    (tmp_path / "human-scores/de-en.mqm.doc.score").write_text("sysX 1\nsysY 2\n")
    (tmp_path / "metric-scores/de-en/COMET-22-refA.seg.score").write_text("sysX 0.9\nsysX 0.1\nsysY 0.2\nsysY 0.8\n")
    (tmp_path / "metric-scores/de-en/BLEU-refA.sys.score").write_text("sysX 50\nsysY 40\n")
    return tmp_path


def test_read_mtme(root):
    s = read_mtme(root, "de-en")
    assert s.sources == ["eins", "zwei"] and s.references == {"refA": ["one", "two"]}
    assert s.outputs["sysY"] == ["uno", "two"]
    sys_scores = s.human[("wmt-z", "sys")]
    assert sys_scores["sysX"] == 0.5 and np.isnan(sys_scores["sysY"])
    seg = s.human[("mqm", "seg")]
    assert seg.to_dict() == {("1", "sysX"): -1.0, ("1", "sysY"): 0.0, ("2", "sysY"): -5.0}  # None dropped
    assert s.metrics[("COMET-22", "refA", "seg")][("2", "sysY")] == 0.8
    assert s.metrics[("BLEU", "refA", "sys")]["sysX"] == 50
    assert s.skipped == ["de-en.mqm.doc.score (doc level)"]


def test_mtme_errors(root):
    with pytest.raises(InputError, match="de-en"):
        read_mtme(root, "fr-en")
    (root / "system-outputs/de-en/bad.txt").write_text("only one line\n")
    with pytest.raises(InputError, match="1 lines, the source has 2"):
        read_mtme(root, "de-en")
    (root / "system-outputs/de-en/bad.txt").unlink()
    (root / "metric-scores/de-en/X-refA.seg.score").write_text("sysX 1\n")
    with pytest.raises(InputError, match="1 segment scores"):
        read_mtme(root, "de-en")
