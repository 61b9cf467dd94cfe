// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the capture reader: any bytes as a pcap file through libpcap and
 * libnbcapture's usbmon parser (the path naoctl replay and verify read a
 * capture with), and as a LoLA packet through the MessagePack decoder.
 *
 * Invariants: no crash, leak or read past a record; every event kept
 * belongs to the device selected and has data when it has a length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <capture/capture.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct lola_sensors s;
	struct lola_command c;
	struct cap_capture cap;
	FILE *f;

	lola_sensors_decode(data, size, &s);
	lola_command_decode(data, size, &c);
	if (!size)
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	if (!cap_read_pcap_file(f, CAP_ANY_DEVICE, &cap)) {
		for (size_t i = 0; i < cap.n; i++) {
			if (cap.ev[i].busdev != CAP_BUSDEV(cap.bus, cap.dev))
				abort();
			if (cap.ev[i].len && !cap.ev[i].data)
				abort();
			if (cap.ev[i].len > size)
				abort();
		}
	}
	cap_free(&cap);
	return 0;
}
