"""Task evals: does an agent finish more tasks with these tools, with your model?

- :mod:`toolspecs.evals.task`: what a task is (request, checks, reason, scripts);
- :mod:`toolspecs.evals.suite`: the tasks;
- :mod:`toolspecs.evals.world`: the sandboxes a run works in;
- :mod:`toolspecs.evals.run`: running tasks with an agent and judging them;
- :mod:`toolspecs.evals.llamahub`: LlamaHub's specs on the same sandboxes;
- :mod:`toolspecs.evals.scripted`: the scripted model the tests use;
- :mod:`toolspecs.evals.report`: the summary table and the chart;
- :mod:`toolspecs.evals.cli`: ``toolspecs eval``.

Importing this package imports nothing else (the CLI's entry point loads through it).
"""
