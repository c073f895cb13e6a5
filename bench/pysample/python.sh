#!/bin/sh
# The workers' Python with bench/pysample/sitecustomize.py loaded (see there): use as
#   KGB_SAMPLE_DIR=/abs/dir KGB_PYTHON=$PWD/bench/pysample/python.sh kgb eval --sandbox=off ...
# KGB_SAMPLE_PYTHON names the real Python (default python3).
here=$(dirname "$(readlink -f "$0")")
PYTHONPATH=$here${PYTHONPATH:+:$PYTHONPATH} exec "${KGB_SAMPLE_PYTHON:-python3}" "$@"
