"""Analysis results kept for the inputs they were computed from, so that an
edit re-runs only the analyses whose inputs it changed (an MTU edit does
not re-simulate a team's flows) and undo or redo finds every result
ready.

An analysis's results are a function of what it reads: the document fields
it declares in ``reads`` (:mod:`solvers.analysis`; the whole document
without them), ``details``, and its upstream's results, themselves
functions of their own keys. The key of an analysis is the canonical JSON
of those fields of every document, in order, with ``details`` and the keys
of the analyses it requires: equal keys, equal results (each analysis is
deterministic, and its results are never changed once made). Documents'
names are no input of any analysis.

Within an analysis, a costly step that reads only part of its inputs (the
time-budget goal seek of a migration reads its columns, not the rate an
MTU edit moves) is kept the same way, keyed on the arrays it reads
(:meth:`AnalysisCache.reuse`, reached as :meth:`solvers.inputs.Inputs.reuse`).
"""

from collections import OrderedDict

import numpy as np
import pydantic_core

#: Results kept per analysis: an edit, its undo and redo, and a few values
#: typed in turn (each entry is one evaluation's results of that analysis).
CACHE_ENTRIES = 16


class AnalysisCache:
    """A bounded least-recently-used store of each analysis's results.

    Used by one evaluating thread at a time (a session's worker).

    Parameters
    ----------
    entries : int
        Results kept per analysis.
    """

    def __init__(self, entries=CACHE_ENTRIES):
        self.entries = entries
        self._stores = {}   # analysis name -> OrderedDict(key -> results)

    def results(self, analysis, key, compute):
        """The results of ``analysis`` for ``key``: kept ones, else
        ``compute()``'s, then kept."""
        return self._kept(analysis.name, key, compute)

    def reuse(self, name, arrays, compute):
        """``compute()``, a function of ``arrays`` alone (e.g. a root
        search on columns an edit left as they were), kept under ``name``
        for arrays of equal type, shape and values."""
        key = tuple((a.dtype.str, a.shape, a.tobytes())
                    for a in map(np.asarray, arrays))
        return self._kept(name, key, compute)

    def _kept(self, name, key, compute):
        store = self._stores.setdefault(name, OrderedDict())
        if key in store:
            store.move_to_end(key)
            return store[key]
        results = compute()
        store[key] = results
        if len(store) > self.entries:
            store.popitem(last=False)
        return results


class InputKeys:
    """The keys of the analyses of one evaluation (see the module
    docstring), each field of each document serialised once.

    Parameters
    ----------
    documents : list of models.scenario.Scenario
        Resolved documents, in the order the analyses get them.
    details : bool
    """

    def __init__(self, documents, details):
        self.documents = documents
        self.details = details
        self._keys = {}   # analysis name -> key
        self._text = {}   # id of a field's value -> its JSON

    def key(self, analysis):
        """Key of ``analysis``; the keys of those it requires first."""
        reads = analysis.reads
        fields = tuple(tuple(self._json(doc, path) for path in reads)
                       if reads is not None else (self._json(doc, None),)
                       for doc in self.documents)
        key = (self.details, fields,
               tuple(self._keys[name] for name in analysis.requires))
        self._keys[analysis.name] = key
        return key

    def _json(self, doc, path):
        value = doc
        if path is not None:
            for part in path.split("."):
                value = getattr(value, part)
        # variants share the base's unchanged parts: serialised once
        # (every value is alive while the documents are, so ids are unique)
        text = self._text.get(id(value))
        if text is None:
            text = self._text[id(value)] = pydantic_core.to_json(value)
        return text
