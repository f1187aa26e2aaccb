"""The README's commands and examples are the real ones."""

import pathlib
import re

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()


def test_the_readme_starts_with_the_two_commands():
    first_block = re.search(r"```sh\n(.*?)```", README, re.S).group(1).splitlines()
    assert first_block == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/matrix resolve --set speculative_config.method=suffix --explain",
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest",
    ]
    ci = (pathlib.Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert "sed -n 2p" in ci  # .ci/run runs the README's second command, as written


def test_the_resolve_output_in_the_readme_is_real(monkeypatch):
    import io

    from matrix.cli import run

    # As the README's first command runs it: at the root of the repository, whose features.toml
    # is the default matrix (no matrix is used unless found or named).
    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)
    shown = README.split("$ matrix resolve --set speculative_config.method=suffix --explain\n", 1)[1].split("\n$ ", 1)[0]
    out = io.StringIO()
    assert run(["resolve", "--set", "speculative_config.method=suffix", "--explain"], stdout=out, stderr=io.StringIO()) == 0
    assert out.getvalue() == shown.rstrip("\n") + "\n"


def _console_blocks(text):
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield command, "\n".join(output)
                command, output = line[2:], []
            else:
                output.append(line)
        yield command, "\n".join(output)


def test_every_command_of_what_it_says_prints_what_the_readme_shows(monkeypatch):
    """The README's first console block, command by command (the default matrix at 0.33.0):
    removed settings, the release history, the watermarking override, no runner."""
    import io
    import shlex

    from matrix.cli import run

    monkeypatch.chdir(pathlib.Path(__file__).parent.parent)  # where the README's commands run
    section = README.split("## What it says", 1)[1].split("\n## ", 1)[0]
    status = None
    blocks = list(_console_blocks(section))
    assert len(blocks) == 8
    for command, shown in blocks:
        if command == "echo $?":
            assert shown == str(status)
            continue
        args = shlex.split(command)
        assert args[0] == "matrix"
        out = io.StringIO()
        status = run(args[1:], stdout=out, stderr=out)
        assert out.getvalue().rstrip("\n") == shown.rstrip("\n"), command
    assert status == 1


def test_every_link_of_the_readme_names_a_file_of_the_repository():
    root = pathlib.Path(__file__).parent.parent
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert [link for link in links if not link.startswith("http") and not (root / link).exists()] == []
    assert len(links) >= 20
