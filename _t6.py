import cProfile, pstats, json, sys
import numpy as np
from pathlib import Path
from models.scenario import parse_scenario
from solvers.evaluate import evaluate_columns
name, path = sys.argv[1], sys.argv[2]
s = parse_scenario((Path("resources/examples")/f"{name}.toml").read_text(), "toml")
base = s.model_copy(update={"variants": [], "sweeps": []})
n=16384
vals = np.linspace(float(sys.argv[3]), float(sys.argv[4]), n)
if len(sys.argv)>5: vals=np.round(vals).astype(int)
evaluate_columns(base, {path: vals}, n)
cProfile.run("evaluate_columns(base, {path: vals}, n)", "/tmp/h36prof")
pstats.Stats("/tmp/h36prof").sort_stats("cumtime").print_stats(18)
