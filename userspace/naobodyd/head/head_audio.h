/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the head's microphones, speaker and speaker mixer, through ALSA
 * (Documentation/naobodyd.rst, "Audio").
 *
 * Two threads of their own, never the body thread's or the network
 * thread's time:
 *   - playback: Speaker's samples (mono, 16-bit, 16 kHz) wait in a bounded
 *     queue and are played back to back, resampled (libsamplerate) to the
 *     device's rate and copied to its channels. When the queue runs dry the
 *     thread writes silence, so an empty queue is never an underrun; after
 *     a buffer of silence the device stops. An underrun the thread could
 *     not prevent (it was not scheduled) is recovered and the next samples
 *     fade in, so it does not pop;
 *   - capture: the microphones' channels mixed to mono, resampled to
 *     16 kHz, in chunks the network thread takes (head_audio_mic_fd()
 *     becomes readable). While the robot speaks (and echo cancellation is
 *     off) the chunks are zeros: the microphones are muted, the stream's
 *     timing goes on.
 * The mixer (Volume, PUT /volume) is driven from the caller's thread under
 * a lock: a few ALSA control writes, no sample is ever scaled.
 *
 * A device that cannot be opened is logged and retried every
 * HEAD_AUDIO_RETRY_NS; what needs it is answered as head_audio_speaker()
 * and head_audio_volume() say.
 */
#ifndef NAOBODYD_HEAD_AUDIO_H
#define NAOBODYD_HEAD_AUDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HEAD_AUDIO_RATE		16000	/* the robot API's rate, both ways */
#define HEAD_AUDIO_QUEUE_S	30	/* Speaker's queue, in seconds */
#define HEAD_AUDIO_QUEUE	(HEAD_AUDIO_QUEUE_S * HEAD_AUDIO_RATE)
#define HEAD_AUDIO_CHUNK	320	/* samples per Microphone message: 20 ms */
#define HEAD_AUDIO_CHUNKS	64	/* held for the network thread: 1.28 s */
#define HEAD_AUDIO_START_PERCENT 65	/* the spec: every start */
#define HEAD_AUDIO_RETRY_NS	(2000ULL * 1000000ULL)

/* Provisional defaults (no public source names HULKs-OS's devices). */
#define HEAD_AUDIO_DEFAULT_SPEAKER	"default"
#define HEAD_AUDIO_DEFAULT_MICS		"default"
#define HEAD_AUDIO_DEFAULT_MIXER	"default"
#define HEAD_AUDIO_DEFAULT_CONTROL	"Master"
#define HEAD_AUDIO_DEFAULT_DEV_RATE	48000
#define HEAD_AUDIO_DEFAULT_MIC_CHANNELS	4
#define HEAD_AUDIO_DEFAULT_SPK_CHANNELS	2

struct head_audio_config {
	const char *speaker;		/* ALSA PCM names, or NULL: none */
	const char *mics;
	const char *mixer;		/* ALSA mixer (card) name, or NULL: none */
	const char *control;		/* its simple control */
	unsigned int speaker_rate;	/* asked of the device (it may pick another) */
	unsigned int speaker_channels;
	unsigned int mic_rate;
	unsigned int mic_channels;
	bool echo_cancellation;		/* true: the microphones stay open while it speaks */
};

struct head_audio_volume {
	uint8_t percent;
	bool muted;
};

/* What the head has, for the REST API's /robot and the log. */
struct head_audio_status {
	bool speaker, mics, mixer;	/* open now */
	const char *speaker_name, *mics_name, *mixer_name, *control;
	size_t queued;			/* samples waiting */
	unsigned int underruns;		/* the speaker's, recovered, since the start */
	unsigned int overruns;		/* the microphones' */
	bool speaking;
};

struct head_audio;

/* Starts the threads; NULL only without memory or threads (logged). */
struct head_audio *head_audio_create(const struct head_audio_config *cfg);
void head_audio_destroy(struct head_audio *a);

/*
 * Queue n samples. 0; -ENODEV: there is no speaker (nothing queued);
 * -ENOSPC: they do not fit in what is left of the queue (nothing queued,
 * the queue unchanged: the client sends them again later, or fewer).
 */
int head_audio_speaker(struct head_audio *a, const int16_t *s, size_t n);
/* Drop what is queued, and what the device has not played yet. */
void head_audio_speaker_clear(struct head_audio *a);

/*
 * Volume: fields left out keep their value; a percent above 0 unmutes
 * unless muted is given. 0 with the new volume in *now; -ENODEV: no mixer
 * (nothing changed); -EIO: ALSA refused (logged).
 */
int head_audio_volume(struct head_audio *a, const uint8_t *percent, const bool *muted,
		      struct head_audio_volume *now);
int head_audio_get_volume(struct head_audio *a, struct head_audio_volume *now);

/* Microphone chunks: wanted or not (none are made while nobody listens). */
void head_audio_mic_want(struct head_audio *a, bool on);
/* An eventfd, readable when chunks wait; -1 without microphones configured. */
int head_audio_mic_fd(const struct head_audio *a);
/*
 * The oldest chunk: its samples into out (HEAD_AUDIO_CHUNK at most), its
 * first sample's time (s since the epoch) into *time; 0 when none is left.
 * *dropped: chunks lost since the last call because the caller fell behind.
 */
size_t head_audio_mic_take(struct head_audio *a, int16_t *out, double *time,
			   unsigned int *dropped);

void head_audio_status(struct head_audio *a, struct head_audio_status *st);

#endif
