"""The corpus split of issue 55, decided before any catalogue entry is written.

The n-th case (its row order in tests/data/nccl-corpus/index.csv, the order the cases were
collected in) takes the n-th label of this plan. Slots come in blocks of three; a seeded draw puts
one of each block held out and two in train, so any number of cases is one third held out (to
within one) and nobody chooses which case lands where. Run it to print the plan.
"""
import random

SEED = 55
SLOTS = 300


def plan(slots=SLOTS, seed=SEED):
    draw = random.Random(seed)
    labels = []
    while len(labels) < slots:
        block = ["train", "train", "train"]
        block[draw.randrange(3)] = "held-out"
        labels += block
    return labels[:slots]


if __name__ == "__main__":
    for number, label in enumerate(plan(), 1):
        print(number, label)
