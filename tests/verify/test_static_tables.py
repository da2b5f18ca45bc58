"""A struct's pointer to a const struct of which the file defines instances (zlib's tree_desc.stat_desc and
trees.c's static_l_desc, static_d_desc, static_bl_desc): generated inputs point it at one of them, by a
global name the file's own object gives each file-scope variable. It was NULL, and every input crashed."""

from __future__ import annotations

from support import FIXTURES, pipeline_on_rewrites

STATICS = FIXTURES / "verify" / "statics"


def test_a_pointer_to_the_files_own_tables_is_generated_and_a_slip_on_one_table_is_wrong(tmp_path):
    res = pipeline_on_rewrites(
        tmp_path, STATICS / "tree.c", "tree_cost", STATICS / "tree_same.c", STATICS / "tree_wrong.c"
    )
    assert res.status == "done", (res.detail, res.harness)
    assert "pointing at the file's own static_bl_desc, static_d_desc, static_l_desc" in res.harness, res.harness
    assert res.coverage and res.coverage["percent"] == 100, res.harness
    by = {c.label: c for c in res.candidates}
    # the bit-length table's last code forgotten: only inputs that point at static_bl_desc see it
    assert by["tree_wrong"].reason == "wrong-output", by["tree_wrong"].detail
    assert by["tree_same"].reason in (None, "not-faster") and by["tree_same"].inputs_checked > 1000, (
        by["tree_same"].reason,
        by["tree_same"].detail,
    )
