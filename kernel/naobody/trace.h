/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints for each step of the cycle, so `trace-cmd record -e naobody`
 * shows a cycle's timing: tick, OUT done, acknowledge, answer, status,
 * timeout, publish.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM naobody

#if !defined(NAOBODY_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define NAOBODY_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(naobody_tick,
	    TP_PROTO(unsigned int index, u64 cycle, u32 out_len, bool busy),
	    TP_ARGS(index, cycle, out_len, busy),
	    TP_STRUCT__entry(__field(unsigned int, index)
			     __field(u64, cycle)
			     __field(u32, out_len)
			     __field(bool, busy)),
	    TP_fast_assign(__entry->index = index;
			   __entry->cycle = cycle;
			   __entry->out_len = out_len;
			   __entry->busy = busy;),
	    TP_printk("dev=%u cycle=%llu out_len=%u%s", __entry->index,
		      __entry->cycle, __entry->out_len,
		      __entry->busy ? " overrun" : "")
);

DECLARE_EVENT_CLASS(naobody_step,
		    TP_PROTO(unsigned int index, u64 cycle, int status, u32 len),
		    TP_ARGS(index, cycle, status, len),
		    TP_STRUCT__entry(__field(unsigned int, index)
				     __field(u64, cycle)
				     __field(int, status)
				     __field(u32, len)),
		    TP_fast_assign(__entry->index = index;
				   __entry->cycle = cycle;
				   __entry->status = status;
				   __entry->len = len;),
		    TP_printk("dev=%u cycle=%llu status=%d len=%u", __entry->index,
			      __entry->cycle, __entry->status, __entry->len)
);

#define NAOBODY_STEP_EVENT(name)						\
	DEFINE_EVENT(naobody_step, name,					\
		     TP_PROTO(unsigned int index, u64 cycle, int status, u32 len), \
		     TP_ARGS(index, cycle, status, len))

NAOBODY_STEP_EVENT(naobody_out_done);
NAOBODY_STEP_EVENT(naobody_ack_done);
NAOBODY_STEP_EVENT(naobody_in_done);
NAOBODY_STEP_EVENT(naobody_status_done);
NAOBODY_STEP_EVENT(naobody_step_timeout);

TRACE_EVENT(naobody_publish,
	    TP_PROTO(unsigned int index, u64 cycle, u32 flags, u32 errors),
	    TP_ARGS(index, cycle, flags, errors),
	    TP_STRUCT__entry(__field(unsigned int, index)
			     __field(u64, cycle)
			     __field(u32, flags)
			     __field(u32, errors)),
	    TP_fast_assign(__entry->index = index;
			   __entry->cycle = cycle;
			   __entry->flags = flags;
			   __entry->errors = errors;),
	    TP_printk("dev=%u cycle=%llu flags=%#x errors=%#x", __entry->index,
		      __entry->cycle, __entry->flags, __entry->errors)
);

#endif /* NAOBODY_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
