"""The registry: groups, help and messages derived from the declared tags; group names accepted
wherever a model list is."""

import pytest
from click.testing import CliRunner

from humeval.cli import cli
from humeval.ranking import DEFAULT_MODELS, GROUPS, HOPKINS_MAY, MODELS, PREFERENCE_MODELS, REGISTRY, expand, make_model, tags
from humeval.ranking.registry import model_help


def test_groups_follow_the_tags():
    assert len(HOPKINS_MAY) == 8  # Hopkins & May's eight (independent-students in its three reconstructions)
    assert set(PREFERENCE_MODELS) == {n for n in expand(tuple(
        f"{name}:{v}" if v else name for name, (_, t) in REGISTRY.items() for v in (t.variants or (None,))))
        if tags(n).preference}
    assert "plackett-luce" in PREFERENCE_MODELS and "plackett-luce" in GROUPS["all"].names  # once forgotten
    assert not {"uniform", "adjusted-uniform"} & set(GROUPS["all"].names)
    assert set(GROUPS["heuristics"].names) == {"orig-wmt", "bojar", "expected-wins", "feedback-arc",
                                               "most-probable-ranking", "mc-playoffs"}
    assert DEFAULT_MODELS == ("bt", "davidson", "rao-kupper", "trueskill", "irt-gaussian",
                              "independent-students:geometric", "independent-pairs")
    assert list(MODELS) == list(REGISTRY)


def test_expand_mixes_groups_and_names_without_repeats():
    assert expand("bt,hopkins-may,bt") == ("bt", *HOPKINS_MAY)
    assert expand(" default ") == DEFAULT_MODELS


def test_help_and_errors_name_every_model_and_group():
    text = model_help()
    assert all(name in text for name in REGISTRY) and all(group in text for group in GROUPS)
    with pytest.raises(ValueError, match="plackett-luce.*a group: preference"):
        make_model("nope")
    with pytest.raises(ValueError, match="has no variant 'cubic'"):
        make_model("independent-students:cubic")
    with pytest.raises(ValueError, match="takes no variant"):
        make_model("bt:cubic")
    help_text = "".join(CliRunner().invoke(cli, ["rank", "--help"]).output.split())  # wrapped at hyphens too
    assert "plackett-luce" in help_text and "hopkins-may" in help_text
    assert "bt,davidson,rao-kupper,thurstone,joint,crowd-btandplackett-luce" in "".join(
        CliRunner().invoke(cli, ["compare-models", "--help"]).output.split())  # --l2 from the prior tag


def test_tags_of_instances_names_and_classes_agree():
    for name, (cls, declared) in REGISTRY.items():
        assert tags(name) is declared and tags(cls) is declared and tags(make_model(name)) is declared


def test_report_takes_a_group_name(tmp_path):
    path = tmp_path / "c.csv"
    rows = ["model_a,model_b,winner"] + [f"{a},{b},model_a" for a, b in [("x", "y"), ("y", "z"), ("x", "z")] * 4]
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "r.md"
    result = CliRunner().invoke(cli, ["report", str(path), "-o", str(out), "--model", "heuristics"])
    assert result.exit_code == 2 and "no preference distribution" in result.output
    result = CliRunner().invoke(cli, ["report", str(path), "-o", str(out), "--model", "hopkins-may", "--bootstrap", "10",
                                      "--trials", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "independent-students:arithmetic" in out.read_text()
