"""Seeded malformed variants of the WMT formats (rankings, DA, metric scores, HMEANT tables): each
read either succeeds (skips counted in the report) or raises ``InputError`` — never another
exception. Mutations: cut the file, drop or repeat a line or a cell, swap the delimiter, put
text, NaN, inf, ``-`` or nothing into a cell, add NUL/control bytes, latin-1 or UTF-16 bytes, a
BOM, CR CR LF line ends, and a stray blank line."""

import random

import pytest

import humeval
from humeval.data.readers.hmeant import TABLES, read_wmt13
from humeval.data.readers.wmt_metrics import read_da_scores, read_metric_scores
from humeval.errors import InputError

SEEDS = range(40)
FILES = {
    "wmt10.csv": "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,system2Id,"
                 "system3Number,system3Id,system1rank,system2rank,system3rank\n"
                 "French,English,1,doc1,1,jdoe,1,bbn,2,uedin,3,jhu,1,2,2\nFrench,English,2,doc1,2,ann,1,bbn,6,_ref,3,jhu,3,1,-1\n",
    "wmt15.deu-eng.csv": "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID\r\n"
                         "deu,eng,581,581,judge1,A,3,B+C,4,1\r\ndeu,eng,581,581,judge1,A,3,D,2,1\r\n"
                         "deu,eng,581,581,judge1,B+C,4,D,2,1\r\ndeu,eng,40,40,judge2,A,1,D,1,2\r\n",
    "wmt08.csv": "TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,SYSTEM_1,SCORE_1_A,SCORE_1_B,"
                 "SYSTEM_2,SCORE_2_A,SCORE_2_B\nWMT08 News,RANK,12,7,45,cu,2,,uedin,1,,pct,3,\n"
                 "WMT08 News,RANK,13,7,30,cu,-,,uedin,1\nWMT07 News,NIST,14,9,50,cu,4,-,uedin,3,2\n",
    "wmt09.tsv": "JUDGEMENT_ID\tTASK\tTYPE\tITEM_ID\tANNOTATOR_ID\tANNOTATOR_TYPE_COUNT\tTIME\tSYSTEM_0\tSCORE_0_A\t"
                 "SCORE_0_B\tSYSTEM_1\tSCORE_1_A\tSCORE_1_B\tEXTRA\n1\tFr-En\tRANK\t17\tann1\t3\t42\tA\t1\t\tB\t2\t\t\n"
                 "2\tFr-En\tEDIT\t18\tann1\t3\t42\tC\t\t\t\t\t\tHe said \"no\".\n",
    "ad-csen-good-stnd.csv": "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time\n"
                             "3IK\tM13\tcs\ten\tad\t4\tFB.7\t100\tSYSTEM\t177\t0.62\t931.0\n"
                             "3IK\tM13\tcs\ten\tad\t4\tOB.0\t101\tBAD_REF\t690\t-1.9\t931.0\n"
                             "3JM\tM14\tcs\ten\tad\t5\tFB.7\t102\tSYSTEM\t177\t0.43\t515.0\n",
    "DA-seglevel.csv": "LP DATA SYSTEM SID HUMAN\ncs-en newstest2017 online-A.0 1 0.25\n"
                       "cs-en newstest2017 uedin+PJATK 1 -0.5\nde-en newstest2017 online-A.0 2 1.5\n",
    "ad-seg-scores-de-en.csv": "SYS SID RAW.SCR Z.SCR N \nOPPO.1360 1 100 1.78 1 \nOPPO.1360 2 75 -0.25 2 \nB.1 1 50 -1.0 1 \n",
}
METRIC = {"BLEU.sys.score": "BLEU\tde-en\tnt\tnt\tA\t30\nBLEU\tde-en\tnt\tnt\tB\t20\nBLEU\tde-en\tnt\tntB\tA\t9\n",
          "chrF.seg.score": "chrF\tde-en\tnt\tnt\tA\td1\t1\t0.8\nchrF\tde-en\tnt\tnt\tB\td1\t1\t0.4\n"}
DA_SYS = "RAW.SCR Z.SCR N SYS N.ALL\n80 0.3 10 A 12\n60 -0.2 10 B 12\n"
HMEANT = {
    "sentences": "id\tlanguage\tsegment\tnumber\tversion\tlength\n0\ten\t01\t01\t00\t4\n1\ten\t01\t01\t01\t4\n",
    "sentences_text": "id\tlanguage\tsegment\tnumber\tversion\ttext\n0\ten\t01\t01\t00\tthe cat sat down\n"
                      "1\ten\t01\t01\t01\tthe cat sits down\n",
    "annotations": "id\tsentence_id\tannotator\tref_id\n0\t0\tann\tNULL\n1\t1\tann\tNULL\n2\t1\tann\t1\n",
    "actions": "id\tannotation_id\ttokens\n0\t0\t2\n1\t1\t2\n2\t2\t2\n",
    "slots": "id\taction_id\ttype\ttokens\n0\t0\tAGENT\t0,1\n1\t1\tAGENT\t0,1\n2\t1\tMANNER\t3\n3\t2\tAGENT\t0,1\n",
    "action_aligns": "id\tref_action_id\thypo_action_id\ttype\n0\t1\t2\tpartial\n",
    "slot_aligns": "id\tref_slot_id\thypo_slot_id\ttype\n0\t1\t3\tfull\n1\t2\t3\tundefined\n",
}
CELLS = ["x", "nan", "NaN", "inf", "-inf", "-", "", "-1", "0", "99999999999", "1.5", "NULL", "\x00", "a\x07b", '"', "A+B"]


def mutate(text: str, rng: random.Random) -> bytes:
    """One random damage to ``text``, as bytes."""
    lines = text.splitlines(keepends=True)
    kind = rng.randrange(12)
    if not lines:
        return text.encode()
    if kind == 0:  # cut anywhere
        return text.encode()[:rng.randrange(len(text.encode()) + 1)]
    if kind == 1 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
    elif kind == 2:  # repeat a line
        k = rng.randrange(len(lines))
        lines.insert(k, lines[k])
    elif kind == 3:  # swap the delimiter
        old, new = rng.choice([(",", ";"), ("\t", ","), (" ", ";"), ("\t", " "), (",", "\t")])
        return text.replace(old, new).encode()
    elif kind == 4:  # a cell's value
        k = rng.randrange(1, len(lines)) if len(lines) > 1 else 0
        sep = "\t" if "\t" in lines[k] else ("," if "," in lines[k] else " ")
        cells = lines[k].rstrip("\r\n").split(sep)
        cells[rng.randrange(len(cells))] = rng.choice(CELLS)
        lines[k] = sep.join(cells) + "\n"
    elif kind == 5:  # drop a cell
        k = rng.randrange(len(lines))
        sep = "\t" if "\t" in lines[k] else ("," if "," in lines[k] else " ")
        cells = lines[k].rstrip("\r\n").split(sep)
        del cells[rng.randrange(len(cells))]
        lines[k] = sep.join(cells) + "\n"
    elif kind == 6:
        return text.encode("latin-1", errors="replace") + "é\n".encode("latin-1")
    elif kind == 7:
        return text.encode("utf-16")
    elif kind == 8:
        return b"\xef\xbb\xbf" + text.replace("\n", "\r\r\n").encode()
    elif kind == 9:  # stray blank line and NUL bytes
        k = rng.randrange(len(lines) + 1)
        lines.insert(k, rng.choice(["\n", "\x00\n", "   \n", "\r\n"]))
    elif kind == 10:  # header only
        return lines[0].encode()
    else:  # empty
        return b""
    return "".join(lines).encode()


def check(call):
    try:
        call()
    except InputError as error:
        assert str(error)  # a message naming the file
    # any other exception fails the test


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(FILES))
def test_fuzz_judgment_files(tmp_path, name, seed):
    rng = random.Random(seed * 1009 + len(name))
    path = tmp_path / name
    path.write_bytes(mutate(FILES[name], rng))
    check(lambda: humeval.read(path))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(FILES))
def test_fuzz_with_the_format_named(tmp_path, name, seed):
    formats = {"wmt10.csv": "wmt-csv", "wmt15.deu-eng.csv": "wmt-csv", "wmt08.csv": "wmt-legacy", "wmt09.tsv": "wmt-legacy",
               "ad-csen-good-stnd.csv": "wmt-da", "DA-seglevel.csv": "wmt-da-seg", "ad-seg-scores-de-en.csv": "wmt-da-seg"}
    path = tmp_path / name
    path.write_bytes(mutate(FILES[name], random.Random(seed * 7919 + len(name))))
    check(lambda: humeval.read(path, format=formats[name]))


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_metric_and_da_score_files(tmp_path, seed):
    rng = random.Random(seed)
    for name, text in METRIC.items():
        (tmp_path / name).write_bytes(mutate(text, rng))
        check(lambda: read_metric_scores(tmp_path / name))
    (tmp_path / "sys.csv").write_bytes(mutate(DA_SYS, rng))
    check(lambda: read_da_scores(tmp_path / "sys.csv"))
    (tmp_path / "seg.csv").write_bytes(mutate(FILES["ad-seg-scores-de-en.csv"], rng))
    (tmp_path / "details.txt").write_bytes(mutate("1\tnt\tde-en\td1\t1\n2\tnt\tde-en\td1\t2\n", rng))
    check(lambda: read_da_scores(tmp_path / "seg.csv", tmp_path / "details.txt"))


@pytest.mark.parametrize("seed", range(60))
def test_fuzz_hmeant_tables(tmp_path, seed):
    rng = random.Random(seed)
    for name, text in HMEANT.items():
        (tmp_path / name).write_text(text)
    damaged = rng.choice(TABLES)
    (tmp_path / damaged).write_bytes(mutate(HMEANT[damaged], rng))
    check(lambda: read_wmt13(tmp_path))
