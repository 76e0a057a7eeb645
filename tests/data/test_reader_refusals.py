"""Regression tests of issue 27's silently wrong reads and fuzz findings: each input either is
refused with an ``InputError`` naming the line, or read with the loss counted in the report."""

import gzip
import os
import tarfile

import numpy as np
import pytest
from click.testing import CliRunner

import humeval
from humeval.cli import cli
from humeval.data.readers import _io
from test_reader_errors import error_of, write

WMT10_HEADER = ("srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,system2Number,"
                "system2Id,system1rank,system2rank")
WMT15_HEADER = "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,rankingID"
WMT09_HEADER = "\t".join(["JUDGEMENT_ID", "TASK", "TYPE", "ITEM_ID", "ANNOTATOR_ID", "ANNOTATOR_TYPE_COUNT", "TIME",
                          "SYSTEM_0", "SCORE_0_A", "SCORE_0_B", "SYSTEM_1", "SCORE_1_A", "SCORE_1_B", "EXTRA"])
DA_HEADER = "HITId WorkerId Input.src Input.trg Input.item hit sys_id rid type sid score time"
MQM_HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\tcomment"
# one small valid file per CSV-like reader: (name, format, header, one data row)
READERS = [
    ("arena.csv", "pairwise", "question_id,model_a,model_b,winner,judge", "q{i},A,B,model_a,u1"),
    ("ratings.csv", "ratings", "item,system,judge,score", "s{i},A,j1,70"),
    ("wmt10.csv", "wmt-csv", WMT10_HEADER, "French,English,{i},d,1,j1,1,A,2,B,1,2"),
    ("wmt09.tsv", "wmt-legacy", WMT09_HEADER, "{i}\tFr-En\tRANK\t{i}\tann\t1\t4\tA\t1\t\tB\t2\t\t"),
    ("mqm.tsv", "mqm", MQM_HEADER, "A\td\t1\t{i}\tr1\tsrc\ttgt\tFluency/Spelling\tMinor\t"),
    ("da.tsv", "wmt-da", DA_HEADER, "H\tW1\tcs\ten\tad\t1\tA\t1\tSYSTEM\t{i}\t70\t5"),
    ("acc.csv", "wmt-acc", "srclang,trglang,srcIndex,documentId,segmentId,judgeId,systemNumber,systemId,editId,"
                           "judgment", "French,English,{i},d,1,j1,1,A,{i},YES"),
    ("edits.tsv", "wmt-edits", "editId\tsrclang\ttrglang\tsrcIndex\tdocumentId\tsegmentId\teditorId\tsystem1Number\t"
                               "system1Id\tsystem1actionVal\tsystem1actionStr\tsystem1edit",
     "{i}\tSpanish\tEnglish\t{i}\td\t1\tE1\t6\tA\t2\tOK\tFine."),
    ("esa.csv", "esa", "system,segment_id,score,error_spans,user_id", "A,{i},70,[],u1"),
]


def _file(tmp_path, spec, rows=12, change=None):
    name, fmt, header, row = spec
    lines = [header] + [row.format(i=i) for i in range(1, rows + 1)]
    if change:
        lines = change(lines)
    return write(tmp_path, name, "\n".join(lines) + "\n"), fmt


@pytest.mark.parametrize("spec", READERS, ids=[r[0] for r in READERS])
def test_every_reader_reads_the_valid_file(spec, tmp_path):
    path, fmt = _file(tmp_path, spec)
    assert humeval.read(path, format=fmt).report.rows == 12


# -- a stray quote, a 5 MB line, merged lines ----------------------------------------------------

def test_a_stray_quote_in_line_11_of_an_arena_csv_is_an_error_naming_it(tmp_path):
    """One `"` in line 11 of an 11,756-row arena CSV read as "10 rows read"."""
    rows = [f"q{i},m{i % 5},n{i % 7},model_a,u{i % 3}" for i in range(11_756)]
    rows[9] = rows[9].replace(",", ',"', 1)  # file line 11
    path = write(tmp_path, "arena.csv", "question_id,model_a,model_b,winner,judge\n" + "\n".join(rows) + "\n")
    error = error_of(humeval.read, path)
    assert error.line == 11 and "quote" in error.problem


def test_a_quote_left_open_in_the_last_column_is_an_error_not_fewer_rows(tmp_path):
    """Arrow read a quote opened in a row's last cell to the end of the file: "2 rows read" of 6."""
    text = "item,system,judge,score,criterion\ns1,A,j1,70,DA\ns1,B,j1,55,\"DA\ns1,A,j2,80,DA\ns2,A,j1,60,DA\n"
    error = error_of(humeval.read, write(tmp_path, "r.csv", text))
    assert error.line == 3 and "unbalanced quote" in error.problem
    closed = "item,system,judge,score,note\ns1,A,j1,70,\"two\nlines\"\ns1,B,j1,55,x\n"  # a quoted line break is text
    assert humeval.read(write(tmp_path, "ok.csv", closed)).ratings.score.tolist() == [70, 55]


def test_a_long_cell_without_quotes_is_text_with_or_without_blank_lines(tmp_path):
    """The unbalanced-quote check runs only when the file holds a quote character: before, a
    blank line (fewer rows than lines) sent a quote-free file through Python's csv module, whose
    131,072-character field limit refused a long cell that the same file without the blank line read."""
    rows = [f"q{i},m{i % 5},n{i % 7},model_a,u{i % 3}" for i in range(20)]
    rows[3] = "q" + "x" * 200_000 + ",m1,n2,model_b,u0"
    for name, text in (("plain.csv", "\n".join(rows)), ("blank.csv", "\n".join(rows[:10] + [""] + rows[10:]))):
        c = humeval.read(write(tmp_path, name, "question_id,model_a,model_b,winner,judge\n" + text + "\n")).comparisons
        assert len(c) == 20 and max(map(len, c.items)) == 200_001 and c.outcome.tolist().count(2) == 1


@pytest.mark.parametrize("spec", [r for r in READERS if r[2].count(",") > 1 or r[0] == "mqm.tsv"],
                         ids=lambda r: r[0])
def test_an_unbalanced_quote_names_its_line(spec, tmp_path):
    def quote(lines):
        lines[4] = lines[4].replace("," if "," in lines[4] else "\t", ',"' if "," in lines[4] else '\t"', 1)
        return lines
    path, fmt = _file(tmp_path, spec, change=quote)
    try:
        j = humeval.read(path, format=fmt)
    except humeval.InputError as error:
        assert error.line == 5, error
        return
    # formats read without quoting (MQM) keep the quote as text: every row is still read
    assert fmt == "mqm" and j.report.rows == 12


@pytest.mark.parametrize("spec", READERS, ids=[r[0] for r in READERS])
@pytest.mark.parametrize("how", ["long line", "unbalanced quote"])
def test_the_csv_field_limit_is_a_clear_error(spec, how, tmp_path):
    """Python's csv field limit (131,072) reached by a 5 MB line or a quote that swallows the
    rest of the file was a "this is a bug" line in every CSV reader."""
    def damage(lines):
        if how == "long line":
            lines[3] = lines[3] + "x" * 200_000
        else:
            sep = "," if "," in lines[3] else "\t"
            lines[3] = lines[3].replace(sep, sep + '"', 1)
            lines += [lines[1]] * 10_000
        return lines
    path, fmt = _file(tmp_path, spec, change=damage)
    try:
        j = humeval.read(path, format=fmt)
    except humeval.InputError as error:
        assert error.line == 4 and len(str(error)) < 600, error
        if fmt not in ("pairwise", "ratings"):  # arrow reads any length: the cell itself is refused
            assert "longer than" in error.problem or "quote" in error.problem or "fields" in error.problem
        return
    # arrow's readers, a whitespace-split format (wmt-da) or one read without quoting (a quote is
    # text there) take the long cell as text
    assert fmt in ("pairwise", "wmt-da", "mqm", "wmt-legacy", "wmt-edits") and j.report.rows >= 12


def test_wmt09_saved_comma_delimited_refuses_the_merged_lines(tmp_path):
    """WMT09 re-saved with commas: a field opening with a quote merged 63 lines and the report
    said 1,437 of 1,500 rows read, with no count for the rest."""
    header = WMT09_HEADER.replace("\t", ",")
    rows = [f"{i},Fr-En,EDIT,{i},ann,1,4,A,,,B,,,He said no." for i in range(1, 40)]
    rows[6] = rows[6].replace("He said no.", '"No, he said.')
    path = write(tmp_path, "wmt09.csv", header + "\n" + "\n".join(rows) + "\n")
    error = error_of(humeval.read, path)
    assert error.line == 8 and "quote" in error.problem and "lines" in error.problem


def test_a_cr_only_arena_csv_reads_as_its_lf_twin(tmp_path):
    text = "question_id,model_a,model_b,winner\nq1,A,B,model_a\nq2,B,C,tie\nq3,A,C,model_b\n"
    lf = humeval.read(write(tmp_path, "lf.csv", text)).comparisons
    cr = humeval.read(write(tmp_path, "cr.csv", text.replace("\n", "\r"))).comparisons
    assert cr.outcome.tolist() == lf.outcome.tolist() == [1, 0, 2]
    result = CliRunner().invoke(cli, ["info", str(tmp_path / "cr.csv")])
    assert result.exit_code == 0 and "this is a bug" not in result.output


# -- duplicated header names ---------------------------------------------------------------------

def test_a_wmt15_header_with_a_duplicated_column_is_refused(tmp_path):
    """A duplicated column name turned the rankingIDs into 136 bogus tracks."""
    text = (WMT15_HEADER.replace("segmentId", "srclang") + "\n"
            "deu,eng,581,581,j1,A,3,B,4,1\ndeu,eng,581,581,j1,A,3,D,2,1\n")
    error = error_of(humeval.read, write(tmp_path, "wmt15.deu-eng.csv", text))
    assert error.line == 1 and "srclang" in error.problem and "more than once" in error.problem


@pytest.mark.parametrize("spec", READERS, ids=[r[0] for r in READERS])
def test_every_csv_reader_refuses_a_duplicated_header_name(spec, tmp_path):
    def duplicate(lines):
        sep = "\t" if "\t" in lines[0] else "," if "," in lines[0] else " "
        cells = lines[0].split(sep)
        cells[-1] = cells[0]
        lines[0] = sep.join(cells)
        return lines
    path, fmt = _file(tmp_path, spec, change=duplicate)
    error = error_of(humeval.read, path, format=fmt)
    assert error.line == 1, error
    assert "more than once" in error.problem or "missing" in error.problem or "header" in error.problem


# -- empty names, missing-value spellings, duplicates, absurd values -----------------------------

def test_wmt_da_rows_without_a_system_are_counted(tmp_path):
    """Empty sys_id was accepted as "0 systems, 1,445 scores"."""
    rows = [f"H\tW1\tcs\ten\tad\t1\t{'A' if i < 3 else ''}\t1\tSYSTEM\t{i}\t{60 + i}\t5" for i in range(10)]
    j = humeval.read(write(tmp_path, "da.tsv", DA_HEADER + "\n" + "\n".join(rows) + "\n"), format="wmt-da")
    assert len(j.ratings) == 3 and j.report.skipped == {"rows without a system name (sys_id empty)": 7}
    empty = [r.replace("\tA\t", "\t\t") for r in rows]
    error = error_of(humeval.read, write(tmp_path, "da2.tsv", DA_HEADER + "\n" + "\n".join(empty) + "\n"),
                     format="wmt-da")
    assert "no scores read (10 rows skipped)" in error.problem


def test_wmt07_nist_scores_dropped_are_counted_by_reason(tmp_path):
    header = "TASK,TYPE,ITEM_ID,ANNOTATOR_ID,TIME,SYSTEM_0,SCORE_0_A,SCORE_0_B,SYSTEM_1,SCORE_1_A,SCORE_1_B"
    rows = ["T,NIST,1,j,5,A,4,NA,B,N/A,3", "T,NIST,2,j,5,,4,2,B,-1,", "T,NIST,3,j,5,A,5,4,B,2,1"]
    j = humeval.read(write(tmp_path, "wmt07.csv", header + "\n" + "\n".join(rows) + "\n"))
    assert sorted(j.ratings.score.tolist()) == [1, 2, 3, 4, 4, 5]
    assert j.report.skipped == {"NIST scores missing (written 'NA')": 1, "NIST scores missing (written 'N/A')": 1,
                                "NIST scores without a system name": 2, "NIST scores missing (written '-1')": 1,
                                "NIST scores missing (written '')": 1}


def test_duplicated_mqm_rows_are_noted(tmp_path):
    rows = ["A\td\t1\t1\tr1\tsrc\ttgt\tFluency/Spelling\tMinor\t", "A\td\t1\t1\tr1\tsrc\ttgt\tAccuracy/Omission\tMajor\t"]
    once = humeval.read(write(tmp_path, "once.tsv", MQM_HEADER + "\n" + "\n".join(rows) + "\n"), format="mqm")
    twice = humeval.read(write(tmp_path, "twice.tsv", MQM_HEADER + "\n" + "\n".join(rows * 2) + "\n"), format="mqm")
    assert once.ratings.score.tolist() == [-6.0]  # Major 5 + Minor 1 (Freitag et al. 2021)
    assert twice.ratings.score.tolist() == [-12.0]
    assert not any("repeat" in n for n in once.report.notes)
    assert any(n.startswith("2 rows repeat an earlier row exactly") for n in twice.report.notes)


@pytest.mark.parametrize("spec", [r for r in READERS if r[1] in ("ratings", "wmt-da", "esa")], ids=lambda r: r[0])
def test_scores_of_1e308_are_refused(spec, tmp_path):
    """Scores of 1e308 printed mean inf."""
    path, fmt = _file(tmp_path, spec, change=lambda lines: [lines[0]] + [x.replace("70", "1e308") for x in lines[1:]])
    error = error_of(humeval.read, path, format=fmt)
    assert error.line == 2 and "out of scale" in error.problem
    result = CliRunner().invoke(cli, ["info", str(path), "--format", fmt])
    assert result.exit_code == 2 and "inf" not in result.output


# -- files that are not text, archives, nesting, paths that are not files ------------------------

@pytest.mark.parametrize("data,what", [
    (b"PK\x03\x04\x14\x00" + b"\x00" * 24 + b"xl/workbook.xml" + b"\x00" * 64, "Excel workbook (.xlsx)"),
    (b"PK\x03\x04\x14\x00" + b"\x00" * 64, "zip archive"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 64, "old Excel (.xls)"),
    (gzip.compress(b"item,system,score\n1,A,3\n", mtime=0), "gzip-compressed"),
])
@pytest.mark.parametrize("name", ["judgments.csv", "judgments.xlsx"])
def test_a_binary_file_is_named_for_what_it_is(data, what, name, tmp_path):
    """A real .xlsx file got "UTF-16 without BOM" advice."""
    path = write(tmp_path, name, data)
    for call in (lambda: humeval.read(path), lambda: humeval.read(path, format="ratings"),
                 lambda: humeval.read(path, format="wmt-csv")):
        error = error_of(call)
        assert what in error.problem and "UTF-16" not in str(error)


def test_deep_json_nesting_is_refused_before_parsing(tmp_path):
    """A deeply nested value crashed the process (segmentation fault in the C parser)."""
    deep = "[" * 100_000 + "]" * 100_000
    for name, text in (("b.json", f'[{{"model_a": "A", "model_b": "B", "winner": "model_a", "x": {deep}}}]'),
                       ("b.jsonl", f'{{"model_a": "A", "model_b": "B", "winner": "model_a", "x": {deep}}}\n')):
        path = write(tmp_path, name, text)
        for fmt in (None, "pairwise"):
            error = error_of(humeval.read, path, format=fmt)
            assert f"nested deeper than {_io.JSON_DEPTH}" in error.problem
    shallow = '{"model_a": "A", "model_b": "B", "winner": "model_a", "x": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[' \
              '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}\n'
    assert len(humeval.read(write(tmp_path, "s.jsonl", shallow)).comparisons) == 1  # brackets in strings do not count


def test_deep_json_inside_a_cell_is_refused_or_counted(tmp_path):
    """A JSON cell nested deeper than Python's recursion limit (DA score lists, ESA error spans)."""
    deep = "[" * 20_000 + "]" * 20_000  # within the csv field limit
    da = write(tmp_path, "x.eten.df.short.tsv", "index\toriginal\ttranslation\tscores\tmean\tz_scores\tz_mean\t"
               f"model_scores\n0\ts\tt\t{deep}\t1\t[0]\t0\t0\n")
    error = error_of(humeval.read, da)
    assert error.line == 2 and "expected a list of numbers" in error.problem
    esa = write(tmp_path, "esa.csv", f"system,segment_id,score,error_spans,user_id\nA,1,70,{deep},u1\nB,1,50,[],u1\n")
    j = humeval.read(esa)
    assert len(j.ratings) == 2 and any("not a JSON list" in n for n in j.report.notes)


def test_decompression_is_bounded(tmp_path, monkeypatch):
    """A 1.5 GB decompressing MQM archive ended in a MemoryError; the limits are module constants
    (2 GiB, or 50× the compressed size past 100 MB), made small here."""
    text = MQM_HEADER + "\n" + "A\td\t1\t1\tr1\tsrc\ttgt\tFluency/Spelling\tMinor\t\n" * 20_000
    path = tmp_path / "mqm.ende.tsv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    assert len(humeval.read(path, format="mqm").ratings) == 1
    monkeypatch.setattr(_io, "RATIO_FLOOR", 100_000)
    monkeypatch.setattr(_io, "CHUNK", 65_536)
    error = error_of(humeval.read, path, format="mqm")
    assert "expands past" in error.problem and "50×" in error.problem
    monkeypatch.setattr(_io, "MAX_EXPANDED", 10_000)
    monkeypatch.setattr(_io, "RATIO_FLOOR", 1 << 40)
    tar = tmp_path / "mqm.tar.gz"
    with tarfile.open(tar, "w:gz") as archive:
        archive.add(write(tmp_path, "inner.tsv", text), arcname="inner.tsv")
    assert "expands past" in error_of(humeval.read, tar, format="mqm").problem


@pytest.mark.parametrize("fmt", [None, "pairwise", "wmt-csv", "mqm", "ratings"])
def test_a_fifo_or_a_device_is_refused_before_it_is_opened(fmt, tmp_path):
    """An endless wait on a FIFO with no writer."""
    fifo = tmp_path / "battles.csv"
    os.mkfifo(fifo)
    assert "FIFO" in error_of(humeval.read, fifo, format=fmt).problem
    assert "device" in error_of(humeval.read, "/dev/zero", format=fmt).problem


def test_a_folder_that_cannot_be_read_is_reported(tmp_path, monkeypatch):
    """Tests run as root, where permissions do not bite: the denial is simulated at os.stat."""
    target = tmp_path / "locked" / "x.csv"
    real = os.stat

    def stat(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path / "locked")):
            raise PermissionError(13, "Permission denied")
        return real(path, *args, **kwargs)
    monkeypatch.setattr(_io.os, "stat", stat)
    error = error_of(_io.read_bytes, target)
    assert "permission denied" in error.problem


def test_mqm_averages_and_hter_of_1e308_are_refused(tmp_path):
    path = write(tmp_path, "avg.tsv", "system mqm_avg_score seg_id\nA 1e308 1\nB 2.5 1\n")
    error = error_of(humeval.read, path, format="mqm-avg")
    assert error.line == 2 and "out of scale" in error.problem
    for part, text in (("mt", "a b\n"), ("pe", "a c\n"), ("hter", "1e308\n")):
        write(tmp_path, f"x.{part}", text)
    error = error_of(humeval.read, tmp_path / "x.mt")
    assert error.line == 1 and "HTER is 1e+308" in error.problem


def test_unchanged_values_still_read(tmp_path):
    """The limits leave ordinary values alone: 1e12 is the largest score read."""
    path = write(tmp_path, "r.csv", "item,system,score\n1,A,1e12\n2,A,-1e12\n3,B,0.5\n")
    assert np.array_equal(humeval.read(path).ratings.score, [1e12, -1e12, 0.5])


# -- HTER on WMT10's post-edits -------------------------------------------------------------------

EDT_HEADER = ("editId\tsrclang\ttrglang\tsrcIndex\tdocumentId\tsegmentId\teditorId\tsystem1Number\tsystem1Id\t"
              "system1actionVal\tsystem1actionStr\tsystem1edit")


def test_wmt10_edit_rows_get_their_output_from_ok_and_bad_rows(tmp_path):
    """`metric hter` on data_EDT.tsv scored only OK rows (output = post-edit): HTER 0.0 for all 47
    systems. An EDIT row's output is the text of a BAD/OK row of the same segment and system."""
    rows = ["1\tSpanish\tEnglish\t10\td\t1\tE1\t6\tA\t1\tEDIT\tthe cat sat on a mat",
            "2\tSpanish\tEnglish\t10\td\t1\tE2\t6\tA\t3\tBAD\tthe cat sat on the mat",
            "3\tGerman\tEnglish\t10\td\t1\tE1\t6\tA\t1\tEDIT\tone two three four",  # same item and system, other track
            "4\tGerman\tEnglish\t10\td\t1\tE2\t6\tA\t2\tOK\tone two three five",
            "5\tGerman\tEnglish\t11\td\t1\tE2\t6\tA\t1\tEDIT\tno output for this one"]
    path = write(tmp_path, "data_EDT.tsv", EDT_HEADER + "\n" + "\n".join(rows) + "\n")
    j = humeval.read(path)
    assert any(n.startswith("2 of 3 EDIT rows given the output") for n in j.report.notes)
    from humeval.metrics import hter
    h = hter(j.post_edits)
    # Spanish: one substitution (the -> a) in 6 words; German: the OK editor's 0 is the minimum
    assert h["hter"].to_dict() == pytest.approx({("Spanish-English", "10", "A"): 1 / 6,
                                                 ("German-English", "10", "A"): 0.0})
    assert h.attrs["skipped"] == 2  # the BAD row (no post-edit) and the EDIT row without an output
    result = CliRunner().invoke(cli, ["metric", "hter", str(path)])
    assert result.exit_code == 0 and "Spanish-English: A" in result.output
    assert "1 post-edits whose output the file does not carry" in result.output


def test_metric_hter_refuses_files_it_cannot_score(tmp_path):
    """A 1-row file and a file with one extra header row reached the "this is a bug" line."""
    one = write(tmp_path, "one.tsv", EDT_HEADER + "\n1\tSpanish\tEnglish\t10\td\t1\tE1\t6\tA\t1\tEDIT\tedited\n")
    result = CliRunner().invoke(cli, ["metric", "hter", str(one)])
    assert result.exit_code == 2 and "none of its 1 post-edit rows has both" in result.output
    extra = write(tmp_path, "extra.tsv", EDT_HEADER + "\n" + EDT_HEADER
                  + "\n1\tSpanish\tEnglish\t10\td\t1\tE1\t6\tA\t2\tOK\tfine\n")
    result = CliRunner().invoke(cli, ["metric", "hter", str(extra)])
    assert result.exit_code == 2 and "extra.tsv:2: the header line appears again" in result.output
    for path in (one, extra):
        assert "this is a bug" not in CliRunner().invoke(cli, ["metric", "hter", str(path)]).output


def test_hter_on_wmt10_data_edt():
    from conftest import shared_file
    from humeval.metrics import hter
    edits = humeval.read(shared_file("wmt10-rankings/wmt10/data_EDT.tsv")).post_edits
    h = hter(edits)
    # 1,327 OK + 428 EDIT rows whose output an OK/BAD row gives; 7,255 − 97 N/A rows read
    assert len(edits) == 7_158 and h.attrs["skipped"] == 7_158 - 1_327 - 428
    edited = h[h["hter"] > 0]
    assert len(edited) > 100 and 0.1 < edited["hter"].mean() < 0.6  # edits change a fraction of the words


# -- --delimiter and --track ------------------------------------------------------------------------

def test_delimiter_reads_a_semicolon_file(tmp_path):
    path = write(tmp_path, "r.csv", "item;system;score\n1;A;3\n2;B;4\n1;B;5\n")
    assert "--delimiter ';'" in error_of(humeval.read, path).fix
    j = humeval.read(path, delimiter=";")
    assert sorted(j.ratings.score.tolist()) == [3, 4, 5] and j.ratings.systems == ("A", "B")
    p = write(tmp_path, "p.txt", "model_a|model_b|winner\nA|B|model_a\nB|C|tie\n")
    assert humeval.read(p, delimiter="pipe").comparisons.outcome.tolist() == [1, 0]
    result = CliRunner().invoke(cli, ["info", str(path), "--delimiter", "semicolon"])
    assert result.exit_code == 0 and "3 rows read as ratings" in result.output
    assert "does not apply to format wmt-csv" in error_of(humeval.read, path, format="wmt-csv", delimiter=";").problem
    assert "not one character" in error_of(humeval.read, path, delimiter=";;").problem


def test_track_matches_case_insensitively_when_nothing_matches_exactly(tmp_path):
    path = write(tmp_path, "p.csv", "track,system_a,system_b,outcome\nde-en,A,B,1\nDE-EN,A,B,2\nfr-en,A,B,0\n"
                                    "cs-en,A,B,1\n")
    from humeval.cli.common import restrict
    exact = restrict(humeval.read(path), ["de-en"]).comparisons
    assert exact.outcome.tolist() == [1] and exact.tracks[exact.track[0]] == "de-en"  # the exact name wins
    folded = restrict(humeval.read(path), ["Fr-En"]).comparisons
    assert folded.outcome.tolist() == [0] and folded.tracks[folded.track[0]] == "fr-en"
    runner = CliRunner()
    folded = runner.invoke(cli, ["info", str(path), "--track", "FR-EN"])
    assert folded.exit_code == 0 and "fr-en" in folded.output and "cs-en" not in folded.output
    ambiguous = runner.invoke(cli, ["info", str(path), "--track", "De-En"])
    assert ambiguous.exit_code == 2 and "matches DE-EN, de-en but for case" in ambiguous.output
    unknown = runner.invoke(cli, ["info", str(path), "--track", "xx"])
    assert unknown.exit_code == 2 and "no track named xx" in unknown.output


# -- the ordinal held-out model when a level is only in the held-out part -------------------------------

def _esa_with_a_lonely_top_level(tmp_path):
    rows = ["system,segment_id,score,error_spans,user_id"]
    rng = np.random.default_rng(0)
    for judge in range(4):
        for segment in range(10):
            for system, base in (("A", 50), ("B", 0)):
                rows.append(f"{system},{segment},{base if rng.random() < .7 else 50 - base},[],u{judge}")
    rows.append("A,3,100,[],lonely")  # an annotator with a single rating, the only 100
    return write(tmp_path, "esa.csv", "\n".join(rows) + "\n")


def test_the_ordinal_model_scores_a_level_no_training_rating_has(tmp_path):
    """An ESA annotator with a single rating (on a level nobody else used) held out: IndexError in
    `report` and `rank --heldout`, as the fit on the training part had one level fewer."""
    from humeval.ratings.heldout import coded, discrete_levels, predictive
    from humeval.ratings.ordinal import fit_ordinal
    data = coded(humeval.read(_esa_with_a_lonely_top_level(tmp_path)).ratings)
    levels = discrete_levels(data)
    assert levels.tolist() == [0, 50, 100]
    train, test = data.take(np.nonzero(data.score != 100)[0]), data.take(np.nonzero(data.score == 100)[0])
    logp, mean = predictive("ordinal", train, test, levels)
    assert logp.shape == (1,) and np.isfinite(logp[0]) and logp[0] < np.log(0.01)  # never seen: improbable
    assert 0 <= mean[0] <= 100
    fit = fit_ordinal(train.score, train.system, train.item, train.judge, train.systems, train.items, train.judges,
                      standard_errors=False, levels=levels)
    proba = np.exp(fit.log_proba(test.system, test.item, test.judge))
    assert proba.shape == (1, 3) and proba.sum() == pytest.approx(1.0)


# -- report: figures bounded by the number of systems and the length of their names ------------------

def test_figures_cut_long_names_and_cap_their_size():
    """A 5,000-character system name took `report` to 4 GB and 22.8 MB of HTML; 400 systems to 10 GB."""
    import pandas as pd

    from humeval.report.ratings_plot import plot_significance_heatmap
    from humeval.report.figures import MAX_INCHES, plot_abilities, short
    assert short("x" * 5_000) == "x" * 39 + " …" and short("sys\x1b[2J") == "sys\\x1b[2J" and short("A") == "A"
    names = ["x" * 5_000] + [f"s{i}" for i in range(399)]
    table = pd.DataFrame({"score": np.linspace(0, 1, 400)}, index=names)
    fig = plot_abilities(table)
    assert max(fig.get_size_inches()) <= MAX_INCHES
    assert max(len(t.get_text()) for t in fig.axes[0].get_yticklabels()) <= 41
    p = pd.DataFrame(np.full((400, 400), 0.5), index=names, columns=names)
    fig = plot_significance_heatmap(p)
    assert max(fig.get_size_inches()) <= MAX_INCHES
    assert max(len(t.get_text()) for t in fig.axes[0].get_xticklabels()) <= 41


def test_a_dataset_folder_that_cannot_be_listed_is_reported(tmp_path, monkeypatch):
    """`info /` ended in a "bug" line (a /proc entry gone while walking; folders root cannot list)."""
    from humeval.data import stream
    (tmp_path / "part=1").mkdir()
    write(tmp_path / "part=1", "a.csv", "system_a,system_b,outcome\nA,B,1\n")
    assert stream.dataset_files(str(tmp_path))[0] == [str(tmp_path / "part=1" / "a.csv")]
    real = os.walk

    def walk(top, onerror=None, **kwargs):
        onerror(PermissionError(13, "Permission denied", str(tmp_path / "locked")))
        yield from real(top, onerror=onerror, **kwargs)
    monkeypatch.setattr(stream.os, "walk", walk)
    error = error_of(humeval.read, tmp_path)
    assert f"cannot read the directory {tmp_path / 'locked'} (Permission denied)" in error.problem
