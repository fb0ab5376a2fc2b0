"""Tournament backends past one machine (the ``local`` and ``process`` ones live in
:mod:`agents.tournament`)."""
