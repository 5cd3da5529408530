#!/usr/bin/env python3
"""Fails unless one of README.md's code blocks in LANGUAGE is exactly the given example
file, so the example a reader pastes is the program CI builds and runs.

usage: readme_example_check.py LANGUAGE README.md EXAMPLE_FILE
"""
import re
import sys

language, readme_path, example_path = sys.argv[1:4]
with open(readme_path, encoding="utf-8") as f:
    blocks = re.findall(r"^```" + re.escape(language) + r"\n(.*?)^```", f.read(), re.S | re.M)
with open(example_path, encoding="utf-8") as f:
    example = f.read()
if example not in blocks:
    sys.exit(f"no {language} code block of {readme_path} is {example_path} verbatim: "
             "copy the program into the README (or the README's example into the file)")
print(f"{readme_path} shows {example_path} verbatim")
