"""The command line: what it says when it stops."""

from tcguide import cli


def test_ctrl_c_in_a_command_other_than_capture_says_nothing_of_snippet_files(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_check", interrupted)
    assert cli.main(["check"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "check: interrupted — run it again to finish" and "snippet" not in err
