"""What `jig compile` shows a person: its diagnostics in reading order."""


def test_diagnostics_read_by_severity_then_file_and_line_each_said_once():
    from jigcli.latex.diagnostic import Diagnostic
    from jigcli.render.compile import in_reading_order

    late = Diagnostic("paper.tex", 40, "warning", "Reference `x' undefined")
    early = Diagnostic("paper.tex", 3, "warning", "Citation `y' undefined")
    chapter = Diagnostic("chapters/a.tex", 7, "error", "Undefined control sequence")
    ordered = in_reading_order([late, early, chapter, late])
    assert ordered == [chapter, early, late]
