"""The run machinery, knowing no game: batches on threads (``batches``),
resumable chunked jobs on threads or Dask (``chunks``), run directories and
their manifests (``store``), Optuna's stores (``optuna_store``) and folders
simkit owns (``owned``).  A game's runs as such jobs and its kernels compiled
ahead are :mod:`simkit.bygame`'s."""
