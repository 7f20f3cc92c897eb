"""`:BB7EditInstructions`: which instruction file to open (created when missing), and which
instruction files apply, in one line."""

from __future__ import annotations

from bb7.host.needs import Call
from bb7.host.protocol import EditInstructionsArgs, InstructionFiles
from bb7.prompt.instructions import PROJECT_INSTRUCTIONS, load_instructions, user_instructions_path
from bb7.refusal import Abort, Problem, unwrap


def edit_instructions(c: Call, args: EditInstructionsArgs) -> InstructionFiles:
    ws = c.session.workspace
    root = None if ws is None else ws.root
    scope = args.scope or ("project" if root is not None else "global")
    if scope == "project":
        unwrap(c.session.project())  # no project here: says to run :BB7Init
        if root is None:
            raise Abort(
                Problem("global", "outside a bb7 project there are no project instructions")
            )
        path = root / PROJECT_INSTRUCTIONS
    else:
        path = user_instructions_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
    except OSError as exc:
        raise Abort(Problem("write_failed", f"{path} cannot be created: {exc.strerror}")) from exc
    loaded = load_instructions(root, None, c.session.settings.context.instruction_files)
    applied = ", ".join(loaded.applied)
    message = (
        f"instructions that apply: {applied}" if applied else "no instruction file applies yet"
    )
    return InstructionFiles(str(path), message)
