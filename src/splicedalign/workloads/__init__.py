"""The workloads: each a subpackage of the same shape (records, ``reference``, CPU solvers,
GPU solvers with their ``.cu`` kernels beside the host code, data generators, ``cli``).

Each workload's ``cli`` module has ``add_commands(subparsers, common)`` that adds its
subcommands to the one ``splicedalign`` command line; its ``solvers`` module holds its
``SolverRegistry`` as ``SOLVERS``. A new workload is one more name here.
"""

WORKLOADS = ("spliced", "nw", "sw", "primer")

# The commands each workload's cli adds (tests/test_cli_commands.py checks them against
# add_commands): the command line imports only the cli of the workload that has a command
# (another workload's cli is ~0.05 s of imports in a fresh process), not the workloads before it.
COMMANDS = {"spliced": ("align", "stats", "synthetic"), "nw": ("nw",), "sw": ("sw", "sw-makedb", "sw-synthetic"),
            "primer": ("primer",)}
