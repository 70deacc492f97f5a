"""A message size as a reader says it: 1 MiB, 64 KiB, 8 B."""


def size_text(n):
    n = int(n or 0)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"
