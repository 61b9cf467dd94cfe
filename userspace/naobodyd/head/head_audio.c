// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the head's microphones, speaker and mixer through ALSA (see
 * head_audio.h).
 *
 * Locks: a->lock guards the speaker's queue, the microphone chunks and
 * the flags the threads share; a->mix_lock guards the mixer. No ALSA call
 * on a PCM is made under a->lock, so a slow device never holds up the
 * network thread's head_audio_speaker() or head_audio_mic_take().
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <alsa/asoundlib.h>
#include <samplerate.h>

#include "clock.h"
#include "head_audio.h"
#include "log.h"

/*
 * The speaker's period and buffer, asked. A long buffer rides out a thread
 * that is not scheduled for a while (a loaded robot, the test VM) and costs
 * SpeakerClear nothing: the playback thread waits for room in poll() on the
 * PCM and an eventfd the clear writes, so it hears of the clear at once,
 * and drops what the device holds (snd_pcm_drop(): it stops at once).
 */
#define PERIOD_US	20000
#define BUFFER_US	200000
#define FADE_MS		5		/* the fade-in after an underrun */
#define PLAY_IN		320		/* 16 kHz samples per playback step: 20 ms */
#define CAPTURE_US	20000		/* the microphones' period */
#define MAX_CHANNELS	8

struct mic_chunk {
	int16_t s[HEAD_AUDIO_CHUNK];
	size_t n;
	double time;
};

struct head_audio {
	struct head_audio_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* the queue has samples, or quit */
	bool quit;
	pthread_t play_tid, cap_tid;
	bool play_started, cap_started;

	/* The speaker's queue: a ring of HEAD_AUDIO_QUEUE samples. */
	int16_t *q;
	size_t q_head, q_len;
	uint64_t clear_gen;		/* SpeakerClear's, seen by the playback thread */
	int spk_efd;			/* written by SpeakerClear and quit: wakes it */
	atomic_bool have_speaker, have_mics, speaking;

	/* The playback thread's. */
	snd_pcm_t *spk;
	unsigned int spk_rate, spk_ch;
	snd_pcm_uframes_t spk_period, spk_buffer;
	SRC_STATE *spk_src;
	atomic_uint underruns, overruns;	/* statistics, read by any thread */
	struct ratelimit rl_xrun;

	/* The capture thread's. */
	snd_pcm_t *mic;
	unsigned int mic_rate, mic_ch;
	snd_pcm_uframes_t mic_period;
	SRC_STATE *mic_src;
	atomic_bool mic_wanted;
	struct ratelimit rl_xrun_mic;

	/* Microphone chunks for the network thread (a->lock). */
	struct mic_chunk *chunks;
	unsigned int c_head, c_len, c_dropped;
	int mic_efd;

	pthread_mutex_t mix_lock;
	snd_mixer_t *mixer;
	snd_mixer_elem_t *elem;
	struct head_audio_volume vol;	/* what was asked: kept while the mixer is away */
	bool mixer_told;		/* its absence logged */
};

/* ---- devices -------------------------------------------------------------- */

/* alsa-lib's own complaints: to our log (debug), not bare on stderr. */
static void alsa_error(const char *file, int line, const char *function, int err,
		       const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_debug("audio: alsa-lib %s:%d (%s): %s%s%s", file, line, function, msg,
		  err ? ": " : "", err ? snd_strerror(err) : "");
}

/*
 * Open a PCM, interleaved S16, near the asked rate and channels, without
 * ALSA's own resampler (libsamplerate does ours). 0, or -errno logged.
 */
static int pcm_open(snd_pcm_t **out, const char *name, snd_pcm_stream_t dir,
		    unsigned int *rate, unsigned int *ch, unsigned int period_us,
		    unsigned int buffer_us, snd_pcm_uframes_t *period,
		    snd_pcm_uframes_t *buffer, int mode, bool quiet)
{
	const char *what = dir == SND_PCM_STREAM_PLAYBACK ? "speaker" : "microphones";
	snd_pcm_hw_params_t *hw;
	snd_pcm_sw_params_t *sw;
	snd_pcm_t *p;
	int err, dirn = 0;

	err = snd_pcm_open(&p, name, dir, mode);
	if (err < 0) {
		if (!quiet)
			log_warn("audio: no %s: cannot open ALSA device %s: %s", what, name,
				 snd_strerror(err));
		return err;
	}
	snd_pcm_hw_params_alloca(&hw);
	snd_pcm_sw_params_alloca(&sw);
	if ((err = snd_pcm_hw_params_any(p, hw)) < 0 ||
	    (err = snd_pcm_hw_params_set_rate_resample(p, hw, 0)) < 0 ||
	    (err = snd_pcm_hw_params_set_access(p, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0 ||
	    (err = snd_pcm_hw_params_set_format(p, hw, SND_PCM_FORMAT_S16)) < 0 ||
	    (err = snd_pcm_hw_params_set_channels_near(p, hw, ch)) < 0 ||
	    (err = snd_pcm_hw_params_set_rate_near(p, hw, rate, &dirn)) < 0 ||
	    (err = snd_pcm_hw_params_set_period_time_near(p, hw, &period_us, &dirn)) < 0 ||
	    (buffer_us && (err = snd_pcm_hw_params_set_buffer_time_near(p, hw, &buffer_us,
									&dirn)) < 0) ||
	    (err = snd_pcm_hw_params(p, hw)) < 0)
		goto fail;
	snd_pcm_hw_params_get_period_size(hw, period, &dirn);
	snd_pcm_hw_params_get_buffer_size(hw, buffer);
	if (*ch < 1 || *ch > MAX_CHANNELS || *rate < 8000 || *rate > 192000 || !*period) {
		err = -EINVAL;
		goto fail;
	}
	/* Playback starts once a period is in; capture at once. */
	if ((err = snd_pcm_sw_params_current(p, sw)) < 0 ||
	    (err = snd_pcm_sw_params_set_avail_min(p, sw, *period)) < 0 ||
	    (err = snd_pcm_sw_params_set_start_threshold(p, sw,
			dir == SND_PCM_STREAM_PLAYBACK ? *period : 1)) < 0 ||
	    (err = snd_pcm_sw_params(p, sw)) < 0)
		goto fail;
	log_info("audio: %s on %s: %u Hz, %u channel%s, period %lu, buffer %lu frames",
		 what, name, *rate, *ch, *ch == 1 ? "" : "s", (unsigned long)*period,
		 (unsigned long)*buffer);
	*out = p;
	return 0;
fail:
	log_warn("audio: no %s: ALSA device %s refuses 16-bit interleaved audio near %u Hz, %u channels: %s",
		 what, name, *rate, *ch, err == -EINVAL ? "unusable parameters" : snd_strerror(err));
	snd_pcm_close(p);
	return err < 0 ? err : -EINVAL;
}

static int speaker_open(struct head_audio *a, bool quiet)
{
	snd_pcm_uframes_t buffer;
	int err;

	a->spk_rate = a->cfg.speaker_rate;
	a->spk_ch = a->cfg.speaker_channels;
	err = pcm_open(&a->spk, a->cfg.speaker, SND_PCM_STREAM_PLAYBACK, &a->spk_rate,
		       &a->spk_ch, PERIOD_US, BUFFER_US, &a->spk_period, &buffer,
		       SND_PCM_NONBLOCK, quiet);
	if (err)
		return err;
	a->spk_buffer = buffer;
	if (a->spk_rate != HEAD_AUDIO_RATE) {
		a->spk_src = src_new(SRC_SINC_FASTEST, 1, &err);
		if (!a->spk_src) {
			log_err("audio: libsamplerate: %s", src_strerror(err));
			snd_pcm_close(a->spk);
			a->spk = NULL;
			return -ENOMEM;
		}
	}
	atomic_store(&a->have_speaker, true);
	return 0;
}

static void speaker_close(struct head_audio *a)
{
	atomic_store(&a->have_speaker, false);
	if (a->spk)
		snd_pcm_close(a->spk);
	a->spk = NULL;
	if (a->spk_src)
		src_delete(a->spk_src);
	a->spk_src = NULL;
}

static int mics_open(struct head_audio *a, bool quiet)
{
	snd_pcm_uframes_t buffer;
	int err;

	a->mic_rate = a->cfg.mic_rate;
	a->mic_ch = a->cfg.mic_channels;
	err = pcm_open(&a->mic, a->cfg.mics, SND_PCM_STREAM_CAPTURE, &a->mic_rate, &a->mic_ch,
		       CAPTURE_US, 0, &a->mic_period, &buffer, 0, quiet);
	if (err)
		return err;
	if (a->mic_rate != HEAD_AUDIO_RATE) {
		a->mic_src = src_new(SRC_SINC_FASTEST, 1, &err);
		if (!a->mic_src) {
			log_err("audio: libsamplerate: %s", src_strerror(err));
			snd_pcm_close(a->mic);
			a->mic = NULL;
			return -ENOMEM;
		}
	}
	atomic_store(&a->have_mics, true);
	return 0;
}

static void mics_close(struct head_audio *a)
{
	atomic_store(&a->have_mics, false);
	if (a->mic)
		snd_pcm_close(a->mic);
	a->mic = NULL;
	if (a->mic_src)
		src_delete(a->mic_src);
	a->mic_src = NULL;
}

/* Wait until quit or timeout; true when quitting. Under a->lock. */
static bool wait_quit_locked(struct head_audio *a, uint64_t ns)
{
	struct timespec ts;
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + ns;

	ts.tv_sec = (time_t)(until / NSEC_PER_SEC);
	ts.tv_nsec = (long)(until % NSEC_PER_SEC);
	while (!a->quit && clock_ns(CLOCK_MONOTONIC) < until)
		pthread_cond_timedwait(&a->cond, &a->lock, &ts);
	return a->quit;
}

static bool quitting(struct head_audio *a)
{
	bool q;

	pthread_mutex_lock(&a->lock);
	q = a->quit;
	pthread_mutex_unlock(&a->lock);
	return q;
}

/* A SpeakerClear the playback thread has not acted on (gen: its own), or quit. */
static bool clear_or_quit(struct head_audio *a, uint64_t gen)
{
	bool yes;

	pthread_mutex_lock(&a->lock);
	yes = a->quit || a->clear_gen != gen;
	pthread_mutex_unlock(&a->lock);
	return yes;
}

static void speaker_wake(struct head_audio *a)
{
	uint64_t one = 1;

	if (a->spk_efd >= 0 && write(a->spk_efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_debug("audio: speaker eventfd: %s", strerror(errno));
}

/*
 * Wait until the speaker has room or a SpeakerClear or quit came (true).
 * The eventfd is only a wake-up: what counts is clear_or_quit(), so one
 * left over from a clear already acted on costs a look, not audio.
 */
static bool speaker_wait(struct head_audio *a, uint64_t gen)
{
	struct pollfd fds[8];
	int n = snd_pcm_poll_descriptors(a->spk, fds, sizeof(fds) / sizeof(fds[0]) - 1);
	unsigned short revents = 0;
	uint64_t v;

	if (n < 0)
		n = 0;
	fds[n] = (struct pollfd){ .fd = a->spk_efd, .events = POLLIN };
	/* Bounded: a device that never says "room" is written to again. */
	if (poll(fds, (nfds_t)n + 1, (int)(2 * BUFFER_US / 1000)) > 0) {
		if (fds[n].revents & POLLIN) {
			if (read(a->spk_efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				log_debug("audio: speaker eventfd: %s", strerror(errno));
			if (clear_or_quit(a, gen))
				return true;
		}
		/* Plugins (ioplug, a sound server's) settle their state here. */
		if (n)
			snd_pcm_poll_descriptors_revents(a->spk, fds, (unsigned int)n, &revents);
	}
	return false;
}

/* Resample n mono floats through src (NULL: a copy); how many came out. */
static size_t resample(SRC_STATE *src, double ratio, const float *in, size_t n, float *out,
		       size_t max)
{
	SRC_DATA sd = { 0 };
	size_t made = 0;

	if (!src) {
		n = n < max ? n : max;
		memcpy(out, in, n * sizeof(*in));
		return n;
	}
	while (n && made < max) {
		sd.data_in = in;
		sd.input_frames = (long)n;
		sd.data_out = out + made;
		sd.output_frames = (long)(max - made);
		sd.src_ratio = ratio;
		if (src_process(src, &sd))
			break;
		in += sd.input_frames_used;
		n -= (size_t)sd.input_frames_used;
		made += (size_t)sd.output_frames_gen;
		if (!sd.input_frames_used && !sd.output_frames_gen)
			break;
	}
	return made;
}

/* ---- playback ------------------------------------------------------------- */

static int mixer_open(struct head_audio *a);
static int mixer_apply(struct head_audio *a);

/*
 * A speaker that came (back): its mixer may have come with it, and gets the
 * volume asked so far (65 % when nothing was), not whatever it had.
 */
static void mixer_sync(struct head_audio *a)
{
	pthread_mutex_lock(&a->mix_lock);
	if (!a->mixer && a->cfg.mixer && !mixer_open(a) && !mixer_apply(a))
		log_info("audio: speaker volume %u %%%s on %s (%s)", a->vol.percent,
			 a->vol.muted ? ", muted" : "", a->cfg.mixer, a->cfg.control);
	pthread_mutex_unlock(&a->mix_lock);
}

/* Up to max queued samples; *cleared when SpeakerClear came since *gen. */
static size_t take_queued(struct head_audio *a, int16_t *out, size_t max, uint64_t *gen,
			  bool *cleared)
{
	size_t n, first;

	pthread_mutex_lock(&a->lock);
	*cleared = a->clear_gen != *gen;
	*gen = a->clear_gen;
	n = a->q_len < max ? a->q_len : max;
	first = HEAD_AUDIO_QUEUE - a->q_head;
	if (first > n)
		first = n;
	memcpy(out, a->q + a->q_head, first * sizeof(*out));
	memcpy(out + first, a->q, (n - first) * sizeof(*out));
	a->q_head = (a->q_head + n) % HEAD_AUDIO_QUEUE;
	a->q_len -= n;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/*
 * Write frames; an underrun is recovered and what is left fades in from
 * silence (the device's last sample was cut off: starting again at full
 * level would click twice). Negative: the device is gone; 1: a SpeakerClear
 * or quit came while it waited for room (what is left was queued before
 * the clear: it is not written).
 */
static int write_frames(struct head_audio *a, int16_t *f, size_t frames, unsigned int *fade,
			uint64_t gen)
{
	unsigned int ch = a->spk_ch, fade_len = a->spk_rate * FADE_MS / 1000;

	while (frames) {
		snd_pcm_sframes_t w;

		for (size_t i = 0; *fade && i < frames; i++, (*fade)--) {
			float g = 1.0f - (float)*fade / (float)fade_len;

			for (unsigned int c = 0; c < ch; c++)
				f[i * ch + c] = (int16_t)((float)f[i * ch + c] * g);
		}
		w = snd_pcm_writei(a->spk, f, frames);
		if (w == -EAGAIN) {
			if (speaker_wait(a, gen))
				return 1;
			continue;
		}
		if (w < 0) {
			int err = snd_pcm_recover(a->spk, (int)w, 1);

			if (err < 0)
				return err;
			unsigned int n = atomic_fetch_add(&a->underruns, 1) + 1;

			if (ratelimit_ok(&a->rl_xrun))
				log_info("audio: speaker underrun (%s; %u so far): recovered, fading in",
					 snd_strerror((int)w), n);
			*fade = fade_len;
			continue;
		}
		f += (size_t)w * ch;
		frames -= (size_t)w;
	}
	return 0;
}

/* From the first queued sample until a buffer of silence went out. */
static int play_until_idle(struct head_audio *a, uint64_t *gen)
{
	const double ratio = (double)a->spk_rate / HEAD_AUDIO_RATE;
	const size_t out_max = (size_t)(PLAY_IN * ratio) + 64;
	int16_t in[PLAY_IN];
	float fin[PLAY_IN], *fout = malloc(out_max * sizeof(*fout));
	int16_t *frames = malloc(out_max * a->spk_ch * sizeof(*frames));
	snd_pcm_uframes_t silent = 0;
	unsigned int fade = 0;
	int err = -ENOMEM;

	if (!fout || !frames)
		goto out;
	err = snd_pcm_prepare(a->spk);
	if (a->spk_src)
		src_reset(a->spk_src);
	while (!err && !quitting(a)) {
		bool cleared;
		size_t n = take_queued(a, in, PLAY_IN, gen, &cleared), made;

		if (cleared) {
			/*
			 * What the device holds and has not played goes too, at
			 * once: drop stops the stream where it is (a rewind
			 * keeps what the hardware is already fetching). Playing
			 * again needs a prepare; the next write starts it.
			 */
			snd_pcm_drop(a->spk);
			err = snd_pcm_prepare(a->spk);
			if (err)
				break;
			if (a->spk_src)
				src_reset(a->spk_src);
			fade = 0;
		}
		if (n) {
			atomic_store(&a->speaking, true);
			silent = 0;
		}
		/* An empty queue plays silence, through the resampler: it flushes its tail. */
		for (size_t i = 0; i < PLAY_IN; i++)
			fin[i] = i < n ? (float)in[i] / 32768.0f : 0.0f;
		made = resample(a->spk_src, ratio, fin, PLAY_IN, fout, out_max);
		for (size_t i = 0; i < made; i++) {
			float v = fout[i] * 32768.0f;
			int16_t s = v >= 32767.0f ? 32767 : v <= -32768.0f ? -32768 : (int16_t)v;

			for (unsigned int c = 0; c < a->spk_ch; c++)
				frames[i * a->spk_ch + c] = s;
		}
		err = write_frames(a, frames, made, &fade, *gen);
		if (err == 1) {
			err = 0;	/* the clear or quit: the loop's next look */
			continue;
		}
		if (!n) {
			silent += made;
			/* A buffer and a period of silence: everything real has played. */
			if (silent >= a->spk_buffer + a->spk_period)
				break;
		}
	}
	if (a->spk)
		snd_pcm_drop(a->spk);
out:
	atomic_store(&a->speaking, false);
	free(fout);
	free(frames);
	return err;
}

static void *play_thread(void *arg)
{
	struct head_audio *a = arg;
	uint64_t gen = 0;
	bool told = a->spk == NULL;

	pthread_setname_np(pthread_self(), "naobodyd-spk");
	for (;;) {
		size_t lost;
		int err;

		pthread_mutex_lock(&a->lock);
		if (!a->spk) {
			if (wait_quit_locked(a, HEAD_AUDIO_RETRY_NS))
				break;
			pthread_mutex_unlock(&a->lock);
			if (!speaker_open(a, told)) {
				log_info("audio: the speaker %s is back", a->cfg.speaker);
				mixer_sync(a);
			}
			told = true;
			continue;
		}
		while (!a->quit && !a->q_len)
			pthread_cond_wait(&a->cond, &a->lock);
		if (a->quit)
			break;
		pthread_mutex_unlock(&a->lock);
		err = play_until_idle(a, &gen);
		if (!err)
			continue;
		pthread_mutex_lock(&a->lock);
		lost = a->q_len;
		a->q_len = 0;
		pthread_mutex_unlock(&a->lock);
		log_warn("audio: the speaker %s failed (%s): closed, %zu queued samples not played; retrying every %llu s",
			 a->cfg.speaker, snd_strerror(err), lost, HEAD_AUDIO_RETRY_NS / NSEC_PER_SEC);
		speaker_close(a);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* ---- capture -------------------------------------------------------------- */

static void push_chunk(struct head_audio *a, const int16_t *s, size_t n, double time)
{
	struct mic_chunk *c;
	uint64_t one = 1;

	pthread_mutex_lock(&a->lock);
	if (a->c_len == HEAD_AUDIO_CHUNKS) {
		/* The network thread fell behind: the oldest goes. */
		a->c_head = (a->c_head + 1) % HEAD_AUDIO_CHUNKS;
		a->c_len--;
		a->c_dropped++;
	}
	c = &a->chunks[(a->c_head + a->c_len) % HEAD_AUDIO_CHUNKS];
	memcpy(c->s, s, n * sizeof(*s));
	c->n = n;
	c->time = time;
	a->c_len++;
	pthread_mutex_unlock(&a->lock);
	if (write(a->mic_efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_debug("audio: microphone eventfd: %s", strerror(errno));
}

static void *cap_thread(void *arg)
{
	struct head_audio *a = arg;
	int16_t *raw = NULL, chunk[HEAD_AUDIO_CHUNK];
	float *mono = NULL, *out = NULL;
	size_t have = 0, out_max = 0;
	double chunk_time = 0, next_t = 0;	/* the next 16 kHz sample's time */
	bool told = a->mic == NULL, was_wanted = false, synced = false;

	pthread_setname_np(pthread_self(), "naobodyd-mic");
	while (!quitting(a)) {
		snd_pcm_sframes_t n, delay = 0;
		size_t made;
		double t_end, ratio;

		if (!a->mic) {
			pthread_mutex_lock(&a->lock);
			if (wait_quit_locked(a, HEAD_AUDIO_RETRY_NS)) {
				pthread_mutex_unlock(&a->lock);
				break;
			}
			pthread_mutex_unlock(&a->lock);
			if (!mics_open(a, told))
				log_info("audio: the microphones %s are back", a->cfg.mics);
			told = true;
			free(raw);
			free(mono);
			free(out);
			raw = NULL;
			mono = out = NULL;
			continue;
		}
		ratio = (double)HEAD_AUDIO_RATE / a->mic_rate;
		if (!raw) {
			out_max = (size_t)((double)a->mic_period * ratio) + 64;
			raw = malloc(a->mic_period * a->mic_ch * sizeof(*raw));
			mono = malloc(a->mic_period * sizeof(*mono));
			out = malloc(out_max * sizeof(*out));
			if (!raw || !mono || !out) {
				log_err("audio: microphones: out of memory");
				mics_close(a);
				continue;
			}
			if (snd_pcm_start(a->mic) < 0)
				snd_pcm_prepare(a->mic);
		}
		n = snd_pcm_readi(a->mic, raw, a->mic_period);
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			int err = snd_pcm_recover(a->mic, (int)n, 1);

			if (err >= 0) {
				unsigned int o = atomic_fetch_add(&a->overruns, 1) + 1;

				if (ratelimit_ok(&a->rl_xrun_mic))
					log_info("audio: microphone overrun (%s; %u so far): recovered",
						 snd_strerror((int)n), o);
				have = 0;
				synced = false;
				continue;
			}
			log_warn("audio: the microphones %s failed (%s): closed; retrying every %llu s",
				 a->cfg.mics, snd_strerror(err), HEAD_AUDIO_RETRY_NS / NSEC_PER_SEC);
			mics_close(a);
			continue;
		}
		if (!atomic_load(&a->mic_wanted)) {
			was_wanted = false;
			continue;
		}
		if (!was_wanted) {
			/* A fresh stream: nothing of the last one's filter state or chunk. */
			was_wanted = true;
			have = 0;
			synced = false;
			if (a->mic_src)
				src_reset(a->mic_src);
		}
		if (snd_pcm_delay(a->mic, &delay) < 0 || delay < 0)
			delay = 0;
		t_end = (double)clock_ns(CLOCK_REALTIME) / 1e9 - (double)delay / a->mic_rate;
		/* The four microphones (or however many) mixed: their mean. */
		for (snd_pcm_sframes_t i = 0; i < n; i++) {
			int32_t sum = 0;

			for (unsigned int c = 0; c < a->mic_ch; c++)
				sum += raw[(size_t)i * a->mic_ch + c];
			mono[i] = (float)sum / (32768.0f * (float)a->mic_ch);
		}
		/* Muted while the robot speaks: its own voice is not for the client. */
		if (!a->cfg.echo_cancellation && atomic_load(&a->speaking))
			memset(mono, 0, (size_t)n * sizeof(*mono));
		made = resample(a->mic_src, ratio, mono, (size_t)n, out, out_max);
		/*
		 * Times count samples from the stream's start, so chunks are
		 * exactly 20 ms apart; the clock (the read's time less the
		 * device's delay) sets the start, and again after an overrun or
		 * a drift past 100 ms.
		 */
		t_end -= (double)made / HEAD_AUDIO_RATE;
		if (!synced || fabs(t_end - next_t) > 0.1)
			next_t = t_end;
		synced = true;
		for (size_t i = 0; i < made; i++) {
			float v = out[i] * 32768.0f;

			if (!have)
				chunk_time = next_t + (double)i / HEAD_AUDIO_RATE;
			chunk[have++] = v >= 32767.0f ? 32767 : v <= -32768.0f ? -32768 : (int16_t)v;
			if (have == HEAD_AUDIO_CHUNK) {
				push_chunk(a, chunk, have, chunk_time);
				have = 0;
			}
		}
		next_t += (double)made / HEAD_AUDIO_RATE;
	}
	free(raw);
	free(mono);
	free(out);
	return NULL;
}

/* ---- the mixer ------------------------------------------------------------ */

static void mixer_close(struct head_audio *a)
{
	if (a->mixer)
		snd_mixer_close(a->mixer);
	a->mixer = NULL;
	a->elem = NULL;
}

/* Under mix_lock. 0, or -ENODEV (logged once until it works). */
static int mixer_open(struct head_audio *a)
{
	snd_mixer_selem_id_t *sid;
	bool no_control = false;
	int err;

	if (a->mixer)
		return 0;
	if (!a->cfg.mixer)
		return -ENODEV;
	snd_mixer_selem_id_alloca(&sid);
	snd_mixer_selem_id_set_index(sid, 0);
	snd_mixer_selem_id_set_name(sid, a->cfg.control);
	err = snd_mixer_open(&a->mixer, 0);
	if (err >= 0 && (err = snd_mixer_attach(a->mixer, a->cfg.mixer)) >= 0 &&
	    (err = snd_mixer_selem_register(a->mixer, NULL, NULL)) >= 0 &&
	    (err = snd_mixer_load(a->mixer)) >= 0) {
		a->elem = snd_mixer_find_selem(a->mixer, sid);
		no_control = !a->elem || !snd_mixer_selem_has_playback_volume(a->elem);
	}
	if (err < 0 || no_control) {
		if (!a->mixer_told)
			log_warn("audio: no speaker mixer: %s on ALSA mixer %s: %s; Volume is not applied",
				 a->cfg.control, a->cfg.mixer,
				 no_control ? "no such playback volume control" :
				 snd_strerror(err));
		a->mixer_told = true;
		mixer_close(a);
		return -ENODEV;
	}
	if (a->mixer_told)
		log_info("audio: the speaker mixer %s on %s is back", a->cfg.control, a->cfg.mixer);
	a->mixer_told = false;
	return 0;
}

/* Write a->vol to the control. Under mix_lock. */
static int mixer_apply(struct head_audio *a)
{
	long min, max, v;
	int err;
	bool sw = snd_mixer_selem_has_playback_switch(a->elem);

	err = snd_mixer_selem_get_playback_volume_range(a->elem, &min, &max);
	if (err < 0)
		goto fail;
	v = min + ((max - min) * a->vol.percent + 50) / 100;
	/* Without a switch, muted is the control's lowest step. */
	if (a->vol.muted && !sw)
		v = min;
	err = snd_mixer_selem_set_playback_volume_all(a->elem, v);
	if (err >= 0 && sw)
		err = snd_mixer_selem_set_playback_switch_all(a->elem, !a->vol.muted);
	if (err >= 0)
		return 0;
fail:
	log_warn("audio: the speaker mixer %s on %s refused the volume: %s; closed, reopened at the next change",
		 a->cfg.control, a->cfg.mixer, snd_strerror(err));
	mixer_close(a);
	return -EIO;
}

int head_audio_volume(struct head_audio *a, const uint8_t *percent, const bool *muted,
		      struct head_audio_volume *now)
{
	struct head_audio_volume was;
	int err;

	pthread_mutex_lock(&a->mix_lock);
	err = mixer_open(a);
	if (!err) {
		was = a->vol;
		if (percent) {
			a->vol.percent = *percent > 100 ? 100 : *percent;
			if (*percent > 0 && !muted)
				a->vol.muted = false;
		}
		if (muted)
			a->vol.muted = *muted;
		err = mixer_apply(a);
		if (err)
			a->vol = was;
	}
	if (now)
		*now = a->vol;
	pthread_mutex_unlock(&a->mix_lock);
	return err;
}

int head_audio_get_volume(struct head_audio *a, struct head_audio_volume *now)
{
	int err;

	pthread_mutex_lock(&a->mix_lock);
	err = mixer_open(a);
	*now = a->vol;
	pthread_mutex_unlock(&a->mix_lock);
	return err;
}

/* ---- the API -------------------------------------------------------------- */

int head_audio_speaker(struct head_audio *a, const int16_t *s, size_t n)
{
	size_t tail, first;

	if (!atomic_load(&a->have_speaker))
		return -ENODEV;
	pthread_mutex_lock(&a->lock);
	if (n > HEAD_AUDIO_QUEUE - a->q_len) {
		pthread_mutex_unlock(&a->lock);
		return -ENOSPC;
	}
	tail = (a->q_head + a->q_len) % HEAD_AUDIO_QUEUE;
	first = HEAD_AUDIO_QUEUE - tail;
	if (first > n)
		first = n;
	memcpy(a->q + tail, s, first * sizeof(*s));
	memcpy(a->q, s + first, (n - first) * sizeof(*s));
	a->q_len += n;
	pthread_cond_broadcast(&a->cond);
	pthread_mutex_unlock(&a->lock);
	return 0;
}

void head_audio_speaker_clear(struct head_audio *a)
{
	pthread_mutex_lock(&a->lock);
	a->q_len = 0;
	a->clear_gen++;
	pthread_mutex_unlock(&a->lock);
	speaker_wake(a);
}

void head_audio_mic_want(struct head_audio *a, bool on)
{
	atomic_store(&a->mic_wanted, on);
}

int head_audio_mic_fd(const struct head_audio *a)
{
	return a->cfg.mics ? a->mic_efd : -1;
}

size_t head_audio_mic_take(struct head_audio *a, int16_t *out, double *time,
			   unsigned int *dropped)
{
	struct mic_chunk *c;
	uint64_t v;
	size_t n = 0;

	pthread_mutex_lock(&a->lock);
	*dropped = a->c_dropped;
	a->c_dropped = 0;
	if (a->c_len) {
		c = &a->chunks[a->c_head];
		n = c->n;
		memcpy(out, c->s, n * sizeof(*out));
		*time = c->time;
		a->c_head = (a->c_head + 1) % HEAD_AUDIO_CHUNKS;
		a->c_len--;
	} else if (read(a->mic_efd, &v, sizeof(v)) < 0 && errno != EAGAIN) {
		log_debug("audio: microphone eventfd: %s", strerror(errno));
	}
	pthread_mutex_unlock(&a->lock);
	return n;
}

void head_audio_status(struct head_audio *a, struct head_audio_status *st)
{
	memset(st, 0, sizeof(*st));
	st->speaker = atomic_load(&a->have_speaker);
	st->mics = atomic_load(&a->have_mics);
	st->speaking = atomic_load(&a->speaking);
	st->speaker_name = a->cfg.speaker;
	st->mics_name = a->cfg.mics;
	st->mixer_name = a->cfg.mixer;
	st->control = a->cfg.control;
	pthread_mutex_lock(&a->mix_lock);
	st->mixer = a->mixer != NULL;
	pthread_mutex_unlock(&a->mix_lock);
	pthread_mutex_lock(&a->lock);
	st->queued = a->q_len;
	pthread_mutex_unlock(&a->lock);
	st->underruns = atomic_load(&a->underruns);
	st->overruns = atomic_load(&a->overruns);
}

struct head_audio *head_audio_create(const struct head_audio_config *cfg)
{
	struct head_audio *a = calloc(1, sizeof(*a));
	pthread_condattr_t ca;
	int err;

	if (!a)
		goto nomem;
	a->cfg = *cfg;
	a->mic_efd = -1;
	a->spk_efd = -1;
	a->q = malloc(HEAD_AUDIO_QUEUE * sizeof(*a->q));
	a->chunks = calloc(HEAD_AUDIO_CHUNKS, sizeof(*a->chunks));
	if (!a->q || !a->chunks)
		goto nomem;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->mix_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->cond, &ca);
	pthread_condattr_destroy(&ca);
	snd_lib_error_set_handler(alsa_error);
	a->mic_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	a->spk_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->mic_efd < 0 || a->spk_efd < 0) {
		log_err("audio: eventfd: %s", strerror(errno));
		head_audio_destroy(a);
		return NULL;
	}
	/* The speaker first: a softvol control appears when its PCM is opened. */
	if (cfg->speaker)
		speaker_open(a, false);
	if (cfg->mics)
		mics_open(a, false);
	a->vol.percent = HEAD_AUDIO_START_PERCENT;
	if (cfg->mixer) {
		pthread_mutex_lock(&a->mix_lock);
		if (!mixer_open(a) && !mixer_apply(a))
			log_info("audio: speaker volume %u %% on %s (%s)", a->vol.percent,
				 cfg->mixer, cfg->control);
		pthread_mutex_unlock(&a->mix_lock);
	}
	if (cfg->speaker) {
		err = pthread_create(&a->play_tid, NULL, play_thread, a);
		if (err)
			goto nothread;
		a->play_started = true;
	}
	if (cfg->mics) {
		err = pthread_create(&a->cap_tid, NULL, cap_thread, a);
		if (err)
			goto nothread;
		a->cap_started = true;
	}
	return a;
nothread:
	log_err("audio: cannot start a thread: %s", strerror(err));
	head_audio_destroy(a);
	return NULL;
nomem:
	log_err("audio: out of memory");
	head_audio_destroy(a);
	return NULL;
}

void head_audio_destroy(struct head_audio *a)
{
	if (!a)
		return;
	if (a->q && a->chunks) {
		pthread_mutex_lock(&a->lock);
		a->quit = true;
		pthread_cond_broadcast(&a->cond);
		pthread_mutex_unlock(&a->lock);
		speaker_wake(a);
		if (a->play_started)
			pthread_join(a->play_tid, NULL);
		if (a->cap_started)
			pthread_join(a->cap_tid, NULL);
		speaker_close(a);
		mics_close(a);
		mixer_close(a);
		pthread_cond_destroy(&a->cond);
		pthread_mutex_destroy(&a->lock);
		pthread_mutex_destroy(&a->mix_lock);
	}
	if (a->mic_efd >= 0)
		close(a->mic_efd);
	if (a->spk_efd >= 0)
		close(a->spk_efd);
	free(a->q);
	free(a->chunks);
	free(a);
}
