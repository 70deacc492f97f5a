"""A tool's JSON output, read whole or, where the tool was killed before it closed its brackets, up
to the last whole element (the open containers closed there): a cut file keeps what was written."""
import json

from ..contracts.input_files import InputError

CLOSERS = {"{": "}", "[": "]"}


def load(path, text):
    """(document, cut): cut is True where the text ended inside the document."""
    try:
        return json.loads(text), False
    except json.JSONDecodeError as error:
        repaired, still_open = _closed_at_last_whole_element(text)
        if not still_open:  # its brackets all closed: not a cut file, a broken one
            raise InputError(f"{path}:{error.lineno}: not valid JSON: {error.msg}") from None
    if repaired is None:
        raise InputError(f"{path}:1: the JSON ends before its first whole element (cut short): nothing to read")
    return json.loads(repaired), True


def _closed_at_last_whole_element(text):
    """(the text up to its last comma outside a string, with the containers open there closed, or
    None where there is no such comma; whether the text ends with a container or a string open)."""
    stack, in_string, escaped, last = [], False, False, None
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in CLOSERS:
            stack.append(char)
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == "," and stack:
            last = text[:position] + "".join(CLOSERS[c] for c in reversed(stack))
    return last, bool(stack) or in_string
