"""The workloads: each a subpackage of the same shape (records, ``reference``, CPU solvers,
GPU solvers with their ``.cu`` kernels beside the host code, data generators, ``cli``).

Each workload's ``cli`` module has ``add_commands(subparsers, common)`` that adds its
subcommands to the one ``splicedalign`` command line; its ``solvers`` module holds its
``SolverRegistry`` as ``SOLVERS``. A new workload is one more name here.
"""

WORKLOADS = ("spliced", "nw", "sw", "primer")
