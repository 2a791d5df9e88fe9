import numpy as np, traceback, sys
from pathlib import Path
from models.scenario import parse_scenario
from solvers import columns as C
from solvers.grid import replaced
name, path = sys.argv[1], sys.argv[2]
s = parse_scenario((Path("resources/examples")/f"{name}.toml").read_text(), "toml")
base = s.model_copy(update={"variants": [], "sweeps": []})
vals = np.array([float(x) for x in sys.argv[3].split(",")]) if "." in sys.argv[3] else np.array([int(x) for x in sys.argv[3].split(",")])
doc = replaced(base, {path: vals})
for fam, fn in [("wire", C._wire_rows), ("transfers", C._transfer_rows), ("storage", C._storage_rows), ("migrations", C._migration_rows)]:
    if fam not in C.column_targets(path): continue
    try:
        fn(doc); print(fam, "arrays ok")
    except Exception:
        print(fam); traceback.print_exc(limit=-3)
