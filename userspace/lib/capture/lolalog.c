// SPDX-License-Identifier: GPL-2.0-only
/*
 * The LoLA log: what LoLA sent (its 896-byte sensor packets) and what the
 * recorder answered, each with the time it was read or written on the
 * clock usbmon stamps its records with (CLOCK_REALTIME), so that verify can
 * put LoLA's value next to the chest board's bytes of the same moment.
 *
 * The packets are kept as LoLA's MessagePack bytes, checked by libmpread
 * and decoded with msgpack-c into LoLA's arrays (as the teams' LoLA
 * readers take them): float32 values, integers accepted where a client
 * would send them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>
#include <mpread/mpread.h>

#include <capture/capture.h>

static const struct {
	const char *name;
	unsigned int n;
} keys[__LOLA_K_MAX] = {
	[LOLA_K_ACC] = { "Accelerometer", 3 },
	[LOLA_K_ANGLES] = { "Angles", 2 },
	[LOLA_K_BATTERY] = { "Battery", 4 },
	[LOLA_K_CURRENT] = { "Current", LOLA_JOINTS },
	[LOLA_K_FSR] = { "FSR", 8 },
	[LOLA_K_GYRO] = { "Gyroscope", 3 },
	[LOLA_K_POSITION] = { "Position", LOLA_JOINTS },
	[LOLA_K_SONAR] = { "Sonar", 2 },
	[LOLA_K_STIFFNESS] = { "Stiffness", LOLA_JOINTS },
	[LOLA_K_TEMPERATURE] = { "Temperature", LOLA_JOINTS },
	[LOLA_K_TOUCH] = { "Touch", 14 },
	[LOLA_K_STATUS] = { "Status", LOLA_JOINTS },
	[LOLA_K_CHEST] = { "Chest", 3 },
	[LOLA_K_LFOOT] = { "LFoot", 3 },
	[LOLA_K_RFOOT] = { "RFoot", 3 },
};

/* The array a key fills in a sensor packet; NULL for a command-only key. */
float *lola_sensor_slot(struct lola_sensors *s, int k)
{
	switch (k) {
	case LOLA_K_ACC: return s->acc;
	case LOLA_K_ANGLES: return s->angles;
	case LOLA_K_BATTERY: return s->battery;
	case LOLA_K_CURRENT: return s->current;
	case LOLA_K_FSR: return s->fsr;
	case LOLA_K_GYRO: return s->gyro;
	case LOLA_K_POSITION: return s->position;
	case LOLA_K_SONAR: return s->sonar;
	case LOLA_K_STIFFNESS: return s->stiffness;
	case LOLA_K_TEMPERATURE: return s->temperature;
	case LOLA_K_TOUCH: return s->touch;
	case LOLA_K_STATUS: return s->status;
	}
	return NULL;
}

/* The array a key fills in a command; NULL for a sensor-only key. */
float *lola_command_slot(struct lola_command *c, int k)
{
	switch (k) {
	case LOLA_K_POSITION: return c->position;
	case LOLA_K_STIFFNESS: return c->stiffness;
	case LOLA_K_CHEST: return c->chest;
	case LOLA_K_LFOOT: return c->lfoot;
	case LOLA_K_RFOOT: return c->rfoot;
	}
	return NULL;
}

static int key_of(const msgpack_object *o)
{
	for (int k = 0; k < __LOLA_K_MAX; k++)
		if (mp_is_str(o, keys[k].name))
			return k;
	return -1;
}

/* What a LoLA client may send as a number: booleans too, NaN as it is. */
static bool number(const msgpack_object *o, float *v)
{
	double d;

	if (!mp_number(o, MP_BOOL_AS_NUMBER, &d))
		return false;
	*v = (float)d;
	return true;
}

/* Walk a map; put(k, index, value) for each element of a known array. */
static int decode(const void *buf, size_t len, void *dst, bool command)
{
	msgpack_unpacked u;
	const char *why;
	int err = -EBADMSG;

	/* Checked before msgpack-c allocates (mpread.h); a value per byte at most. */
	if (mp_unpack_stream(&u, buf, len, len, len, &why) <= 0)
		return -EBADMSG;
	if (u.data.type != MSGPACK_OBJECT_MAP)
		goto out;
	for (uint32_t i = 0; i < u.data.via.map.size; i++) {
		const msgpack_object_kv *kv = &u.data.via.map.ptr[i];
		int k = key_of(&kv->key);
		float *slot;

		if (k < 0)
			continue;
		if (command) {
			struct lola_command *c = dst;

			if (k == LOLA_K_SONAR) {
				if (kv->val.type != MSGPACK_OBJECT_ARRAY ||
				    kv->val.via.array.size != 2)
					goto out;
				for (int j = 0; j < 2; j++) {
					float v;

					if (!number(&kv->val.via.array.ptr[j], &v))
						goto out;
					c->sonar[j] = v != 0;
				}
				c->have |= 1u << k;
				continue;
			}
			slot = lola_command_slot(c, k);
		} else {
			slot = lola_sensor_slot(dst, k);
		}
		if (!slot)
			continue;
		if (kv->val.type != MSGPACK_OBJECT_ARRAY ||
		    kv->val.via.array.size != keys[k].n)
			goto out;
		for (uint32_t j = 0; j < keys[k].n; j++)
			if (!number(&kv->val.via.array.ptr[j], &slot[j]))
				goto out;
		if (command)
			((struct lola_command *)dst)->have |= 1u << k;
		else
			((struct lola_sensors *)dst)->have |= 1u << k;
	}
	err = 0;
out:
	msgpack_unpacked_destroy(&u);
	return err;
}

int lola_sensors_decode(const void *buf, size_t len, struct lola_sensors *s)
{
	memset(s, 0, sizeof(*s));
	return decode(buf, len, s, false);
}

int lola_command_decode(const void *buf, size_t len, struct lola_command *c)
{
	memset(c, 0, sizeof(*c));
	return decode(buf, len, c, true);
}

struct membuf {
	uint8_t *p;
	size_t len, cap;
	bool over;
};

static int mem_write(void *data, const char *buf, size_t len)
{
	struct membuf *m = data;

	if (m->len + len > m->cap) {
		m->over = true;
		return -1;
	}
	memcpy(m->p + m->len, buf, len);
	m->len += len;
	return 0;
}

static void pack_key(msgpack_packer *pk, int k)
{
	msgpack_pack_str(pk, strlen(keys[k].name));
	msgpack_pack_str_body(pk, keys[k].name, strlen(keys[k].name));
}

static void pack_floats(msgpack_packer *pk, int k, const float *v)
{
	pack_key(pk, k);
	msgpack_pack_array(pk, keys[k].n);
	for (unsigned int i = 0; i < keys[k].n; i++)
		msgpack_pack_float(pk, v[i]);
}

static void pack_str(msgpack_packer *pk, const char *s)
{
	msgpack_pack_str(pk, strlen(s));
	msgpack_pack_str_body(pk, s, strlen(s));
}

/*
 * The command the recorder sends: the 11 keys B-Human and HULKs send, all
 * float32 but Sonar (booleans). The head's LEDs (ears, eyes, skull) are
 * sent dark.
 */
size_t lola_command_encode(const struct lola_command *c, void *buf, size_t cap)
{
	static const float dark[24];
	struct membuf m = { buf, 0, cap, false };
	msgpack_packer pk;

	msgpack_packer_init(&pk, &m, mem_write);
	msgpack_pack_map(&pk, 11);
	pack_floats(&pk, LOLA_K_POSITION, c->position);
	pack_floats(&pk, LOLA_K_STIFFNESS, c->stiffness);
	pack_floats(&pk, LOLA_K_CHEST, c->chest);
	pack_str(&pk, "LEar");
	msgpack_pack_array(&pk, 10);
	for (int i = 0; i < 10; i++)
		msgpack_pack_float(&pk, dark[i]);
	pack_str(&pk, "REar");
	msgpack_pack_array(&pk, 10);
	for (int i = 0; i < 10; i++)
		msgpack_pack_float(&pk, dark[i]);
	pack_str(&pk, "LEye");
	msgpack_pack_array(&pk, 24);
	for (int i = 0; i < 24; i++)
		msgpack_pack_float(&pk, dark[i]);
	pack_str(&pk, "REye");
	msgpack_pack_array(&pk, 24);
	for (int i = 0; i < 24; i++)
		msgpack_pack_float(&pk, dark[i]);
	pack_floats(&pk, LOLA_K_LFOOT, c->lfoot);
	pack_floats(&pk, LOLA_K_RFOOT, c->rfoot);
	pack_str(&pk, "Skull");
	msgpack_pack_array(&pk, 12);
	for (int i = 0; i < 12; i++)
		msgpack_pack_float(&pk, dark[i]);
	pack_key(&pk, LOLA_K_SONAR);
	msgpack_pack_array(&pk, 2);
	for (int i = 0; i < 2; i++)
		c->sonar[i] ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
	return m.over ? 0 : m.len;
}

/* A sensor packet as LoLA lays it out, for the capture generator and tests */
size_t lola_sensors_encode(const struct lola_sensors *s, const char *body_id,
			   void *buf, size_t cap)
{
	static const int order[] = {
		LOLA_K_ACC, LOLA_K_ANGLES, LOLA_K_BATTERY, LOLA_K_CURRENT,
		LOLA_K_FSR, LOLA_K_GYRO, LOLA_K_POSITION, LOLA_K_SONAR,
		LOLA_K_STIFFNESS, LOLA_K_TEMPERATURE, LOLA_K_TOUCH,
	};
	struct membuf m = { buf, 0, cap, false };
	struct lola_sensors tmp = *s;
	msgpack_packer pk;

	msgpack_packer_init(&pk, &m, mem_write);
	msgpack_pack_map(&pk, 13);
	pack_str(&pk, "RobotConfig");
	msgpack_pack_array(&pk, 4);
	pack_str(&pk, body_id);
	pack_str(&pk, "6.0.0");
	pack_str(&pk, body_id);
	pack_str(&pk, "6.0.0");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		pack_floats(&pk, order[i], lola_sensor_slot(&tmp, order[i]));
	pack_key(&pk, LOLA_K_STATUS);
	msgpack_pack_array(&pk, LOLA_JOINTS);
	for (int j = 0; j < LOLA_JOINTS; j++)
		msgpack_pack_unsigned_int(&pk, (unsigned int)s->status[j]);
	return m.over ? 0 : m.len;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int lola_log_open(FILE *f)
{
	return fwrite(LOLA_LOG_MAGIC, 1, 8, f) == 8 ? 0 : -EIO;
}

int lola_log_append(FILE *f, uint64_t ts_ns, char dir, const void *buf,
		    size_t len)
{
	uint8_t h[16] = { 0 };

	if (len > LOLA_PACKET_MAX)
		return -EMSGSIZE;
	put_le(h, ts_ns, 8);
	put_le(h + 8, len, 4);
	h[12] = (uint8_t)dir;
	if (fwrite(h, 1, 16, f) != 16 || fwrite(buf, 1, len, f) != len)
		return -EIO;
	return 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 1024;
	q = realloc(*p, *cap * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

int lola_log_read(const char *path, struct lola_log *log)
{
	uint8_t h[16], *buf = malloc(LOLA_PACKET_MAX);
	FILE *f = fopen(path, "rb");
	char magic[8];
	int err = 0;

	memset(log, 0, sizeof(*log));
	if (!f || !buf) {
		err = f ? -ENOMEM : -errno;
		snprintf(log->err, sizeof(log->err), "%s: %s", path, strerror(-err));
		goto out;
	}
	if (fread(magic, 1, 8, f) != 8 || memcmp(magic, LOLA_LOG_MAGIC, 8)) {
		snprintf(log->err, sizeof(log->err), "%s: not a LoLA log (no %.7s header)",
			 path, LOLA_LOG_MAGIC);
		err = -EBADMSG;
		goto out;
	}
	while (fread(h, 1, 16, f) == 16) {
		uint64_t ts = get_le(h, 8);
		uint32_t len = (uint32_t)get_le(h + 8, 4);

		if (len > LOLA_PACKET_MAX || (h[12] != 'S' && h[12] != 'C')) {
			snprintf(log->err, sizeof(log->err),
				 "%s: a record of %u bytes, direction 0x%02x: the log is damaged after %zu packets",
				 path, len, h[12], log->ns + log->nc);
			err = -EBADMSG;
			goto out;
		}
		if (fread(buf, 1, len, f) != len)
			break;		/* cut short: keep what came before */
		if (h[12] == 'S') {
			err = grow((void **)&log->s, &log->caps, log->ns, sizeof(*log->s));
			if (err)
				goto out;
			if (lola_sensors_decode(buf, len, &log->s[log->ns])) {
				log->bad++;
				continue;
			}
			log->s[log->ns++].ts_ns = ts;
		} else {
			err = grow((void **)&log->c, &log->capc, log->nc, sizeof(*log->c));
			if (err)
				goto out;
			if (lola_command_decode(buf, len, &log->c[log->nc])) {
				log->bad++;
				continue;
			}
			log->c[log->nc++].ts_ns = ts;
		}
	}
out:
	if (f)
		fclose(f);
	free(buf);
	return err;
}

void lola_log_free(struct lola_log *log)
{
	free(log->s);
	free(log->c);
	memset(log, 0, sizeof(*log));
}
