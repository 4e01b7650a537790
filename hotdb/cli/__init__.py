"""The command line: arguments (app.py, options.py, args.py), words and rendering (words.py,
render.py: the only module that imports Rich), the report (report.py), files written whole
(output.py), and the generated reference pages (docs.py). `hotdb.cli.app:main` is the entry point."""
