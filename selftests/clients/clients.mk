# SPDX-License-Identifier: GPL-2.0-only
# The robot API's client libraries against naobodyd --sim: Python
# (userspace/python/naobody, pip-installed offline into a venv, and its
# example) and C (libnbclient, nbclient-test and examples/c/wake_walk.c).
HOST_TESTS += $(addprefix $(srctree)/selftests/clients/, python_client_test.py c_client_test.py)
