# SPDX-License-Identifier: GPL-2.0-only
#
# The physical NAO: the MuJoCo model (userspace/sim/nao6/nao6.xml) checked
# against the published figures (Documentation/nao6-model.rst). The test
# finds the model beside its own source, the way codec_doc_test finds its
# page; libnbmotion gives it the project's joint names and ranges.
UNIT_TESTS += sim_model_test
sim_model_test_SRCS := $(srctree)/selftests/sim/model_test.c
sim_model_test_LIBS := nbmotion
sim_model_test_LDLIBS := -lmujoco -lm
