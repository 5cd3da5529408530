#!/usr/bin/env python3
"""Fails unless README.md's first ```java block is exactly the given example file.

usage: readme_example_check.py README.md examples/Quickstart.java
"""
import re
import sys

readme_path, example_path = sys.argv[1:3]
with open(readme_path, encoding="utf-8") as f:
    block = re.search(r"```java\n(.*?)```", f.read(), re.S)
with open(example_path, encoding="utf-8") as f:
    example = f.read()
if not block:
    sys.exit(f"{readme_path} has no java code block")
if block.group(1) != example:
    sys.exit(f"{readme_path}'s java example differs from {example_path}: copy one into the other")
print(f"{readme_path}'s java example is {example_path}")
