"""The run machinery: batches on threads (``batches``), resumable chunked jobs
on threads or Dask (``chunks``, ``jobs``), run directories and their manifests
(``store``), and kernels compiled ahead of a long job (``warm``)."""
