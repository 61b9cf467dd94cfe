# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libnbclient: naobodyd's robot API from C and C++ (<naobody/client.h>),
# over msgpack-c. Static and shared (libnbclient.so.1); programs that link
# it add <name>_LDLIBS += $(pkg-config --libs msgpack).
LIBRARIES += nbclient
SHARED_LIBRARIES += nbclient
nbclient_SOVERSION := 1
nbclient_LDLIBS := $(shell $(PKG_CONFIG) --libs msgpack)
nbclient_SRCS := $(srctree)/userspace/lib/nbclient/client.c

# examples/c/wake_walk.c, against the tree's header and the static library,
# as a program outside this tree builds it (make userspace builds it too).
NBCLIENT_EXAMPLE := $(O)/examples/wake-walk-c
$(NBCLIENT_EXAMPLE): $(srctree)/examples/c/wake_walk.c $(O)/obj/lib/libnbclient.a \
		$(srctree)/userspace/include/naobody/client.h
	$(quiet) CC $(@:$(O)/%=%)
	$(Q)mkdir -p $(@D) && $(CC) -std=gnu11 -I$(srctree)/userspace/include $(WARN_CFLAGS) \
		$(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/obj/lib/libnbclient.a $(nbclient_LDLIBS)
userspace: $(NBCLIENT_EXAMPLE)
examples: $(NBCLIENT_EXAMPLE)

# Its test against naobodyd --sim (selftests/clients/c_client_test.py runs it).
PROGRAMS += nbclient-test
nbclient-test_SRCS := $(srctree)/selftests/clients/nbclient_test.c
nbclient-test_LIBS := nbclient
nbclient-test_LDLIBS := $(nbclient_LDLIBS) -lm
