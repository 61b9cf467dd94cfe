// SPDX-License-Identifier: GPL-2.0-only
//! ring-reader-rs: the state ring of /dev/naobody from Rust, with std and the
//! `libc` crate only (Debian's librust-libc-dev), following the reader
//! protocol in <linux/naobody.h>: acquire loads of head and seq, the
//! torn-record check and the lost-record count.
//!
//!     ring-reader-rs [-n COUNT] [DEVICE]
//!
//! Prints each record from the one after the newest at start-up as one
//! tab-separated line of counts, the columns of `naoctl dump -c` (without
//! its header), then "from record FIRST: lost N" on stderr.

use std::ffi::CString;
use std::io::{self, Write};
use std::mem::{size_of, MaybeUninit};
use std::process::exit;
use std::ptr;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};

// <linux/naobody.h>, the parts this reader uses, laid out as the header has them.
const NAOBODY_ABI_VERSION: u32 = 1;
const NAOBODY_RING_MAGIC: u32 = 0x4e41_4f42;
const NAOBODY_RING_DISCONNECTED: u32 = 1 << 0;
const NAOBODY_JOINTS: usize = 25;
const NAOBODY_FSRS: usize = 8;

#[repr(C)]
struct NaobodyInfo {
    abi_version: u32,
    flags: u32,
    driver_version: [u8; 32],
    chest_version: u32,
    period_ns: u32,
    record_size: u32,
    record_count: u32,
    ring_size: u64,
    boards: u32,
    stop_reason: u32,
    reserved: [u64; 4],
}

#[repr(C)]
struct RingHeader {
    magic: u32,
    abi_version: u32,
    header_size: u32,
    record_size: u32,
    record_count: u32,
    records_offset: u32,
    head: AtomicU64,
    period_ns: u32,
    flags: AtomicU32,
    reserved: [u64; 4],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Sensors {
    accelerometer: [i32; 3],
    gyroscope: [i32; 3],
    angles: [i32; 2],
    battery_charge: i32,
    battery_status: i32,
    battery_current: i32,
    battery_temperature: i32,
    fsr: [i32; NAOBODY_FSRS],
    sonar: [i32; 2],
    touch: u32,
    updated: u32,
    joint_position: [i32; NAOBODY_JOINTS],
    joint_current: [i32; NAOBODY_JOINTS],
    joint_temperature: [i32; NAOBODY_JOINTS],
    joint_status: [u8; NAOBODY_JOINTS],
    reserved: [u8; 11],
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Actuators {
    position: [i32; NAOBODY_JOINTS],
    stiffness: [u16; NAOBODY_JOINTS],
    leds: [u8; 9],
    sonar: u8,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Record {
    seq: u64,
    cycle: u64,
    out_submit_ns: u64,
    in_complete_ns: u64,
    flags: u32,
    errors: u32,
    boards_up: u64,
    sensors: Sensors,
    commanded: Actuators,
}

// The header's sizes: a field out of place here would read the wrong bytes.
const _: () = assert!(size_of::<NaobodyInfo>() == 104);
const _: () = assert!(size_of::<RingHeader>() == 72);
const _: () = assert!(size_of::<Sensors>() == 432);
const _: () = assert!(size_of::<Record>() == 640);

// _IOR(0xB9, 0x00, struct naobody_info) of <asm-generic/ioctl.h>.
const NAOBODY_IOC_GET_INFO: u64 =
    (2 << 30) | ((size_of::<NaobodyInfo>() as u64) << 16) | (0xb9 << 8);

struct Ring {
    base: *const u8,
    hdr: &'static RingHeader,
    count: u64,
}

impl Ring {
    fn slot(&self, n: u64) -> *const Record {
        let off = self.hdr.records_offset as usize
            + (n & (self.count - 1)) as usize * self.hdr.record_size as usize;
        // SAFETY: n & (count - 1) < record_count, so the slot is inside the mapping.
        unsafe { self.base.add(off) as *const Record }
    }

    /// Copy record n; None if it was overwritten before or while we copied it.
    fn copy(&self, n: u64) -> Option<Record> {
        let slot = self.slot(n);
        // SAFETY: seq is the first, 8-byte aligned field of the slot.
        let seq = unsafe { &*(ptr::addr_of!((*slot).seq) as *const AtomicU64) };
        let want = 2 * n + 2;
        // Acquire: the payload loads below cannot pass this one.
        if seq.load(Ordering::Acquire) != want {
            return None;
        }
        // Volatile: the writer may be changing the slot under us, which
        // the second look at seq detects; the compiler must not assume
        // otherwise. SAFETY: the slot is mapped and Record is plain data.
        let rec = unsafe { ptr::read_volatile(slot) };
        // The copy's loads complete before seq is looked at again.
        fence(Ordering::Acquire);
        if seq.load(Ordering::Relaxed) != want {
            return None;
        }
        Some(rec)
    }
}

fn print_record(out: &mut impl Write, r: &Record) -> io::Result<()> {
    let s = &r.sensors;
    let mut cols: Vec<String> = vec![
        r.seq.to_string(),
        r.cycle.to_string(),
        r.out_submit_ns.to_string(),
        r.in_complete_ns.to_string(),
        format!("{:#x}", r.flags),
        format!("{:#x}", r.errors),
        format!("{:#x}", r.boards_up),
    ];
    let counts = s.accelerometer.iter().chain(&s.gyroscope).chain(&s.angles);
    cols.extend(counts.map(|v| v.to_string()));
    for v in [s.battery_charge, s.battery_status, s.battery_current, s.battery_temperature] {
        cols.push(v.to_string());
    }
    cols.extend(s.fsr.iter().chain(&s.sonar).map(|v| v.to_string()));
    cols.push(format!("{:#x}", s.touch));
    cols.push(format!("{:#x}", s.updated));
    let joints = s.joint_position.iter().chain(&s.joint_current).chain(&s.joint_temperature);
    cols.extend(joints.map(|v| v.to_string()));
    cols.extend(s.joint_status.iter().map(|v| v.to_string()));
    writeln!(out, "{}", cols.join("\t"))
}

fn fail(what: &str) -> ! {
    eprintln!("ring-reader-rs: {}: {}", what, io::Error::last_os_error());
    exit(1);
}

/// Sleep until the ring has a record this file hasn't read().
fn wait_record(fd: i32) {
    let mut p = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    loop {
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut p, 1, 2000) };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n < 0 {
            fail("poll");
        }
        if n == 0 {
            eprintln!("ring-reader-rs: no record in 2 s");
            exit(1);
        }
        break;
    }
    if p.revents & (libc::POLLHUP | libc::POLLERR) != 0 {
        eprintln!("ring-reader-rs: the device is gone");
        exit(1);
    }
    // poll() stays ready until a read() marks the newest record read.
    let mut scratch = MaybeUninit::<Record>::uninit();
    // SAFETY: the buffer holds size_of::<Record>() bytes.
    unsafe { libc::read(fd, scratch.as_mut_ptr() as *mut libc::c_void, size_of::<Record>()) };
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut want: i64 = -1;
    let mut path = "/dev/naobody".to_string();
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "-h" | "--help" => {
                println!("Usage: ring-reader-rs [-n COUNT] [DEVICE]");
                println!("Prints the ring's records as `naoctl dump -c` does, read from the");
                println!("mapping with std and libc only; then \"from record FIRST: lost N\"");
                println!("on stderr.");
                return;
            }
            "-n" => {
                i += 1;
                want = match args.get(i).and_then(|a| a.parse::<i64>().ok()) {
                    Some(n) if n > 0 => n,
                    _ => {
                        eprintln!("ring-reader-rs: -n takes a positive number");
                        exit(2);
                    }
                };
            }
            a => path = a.to_string(),
        }
        i += 1;
    }

    let cpath = CString::new(path.clone()).unwrap();
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(cpath.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        fail(&path);
    }
    // SAFETY: NaobodyInfo is plain data; all zeroes is a valid value.
    let mut info: NaobodyInfo = unsafe { std::mem::zeroed() };
    // SAFETY: the ioctl writes one struct naobody_info.
    if unsafe { libc::ioctl(fd, NAOBODY_IOC_GET_INFO as _, &mut info as *mut NaobodyInfo) } < 0 {
        fail("NAOBODY_IOC_GET_INFO");
    }
    if info.abi_version != NAOBODY_ABI_VERSION || (info.record_size as usize) < size_of::<Record>() {
        eprintln!(
            "ring-reader-rs: ABI {}, records of {} bytes: not what this was built for",
            info.abi_version, info.record_size
        );
        exit(1);
    }
    // SAFETY: a read-only shared mapping of ring_size bytes of the device.
    let map = unsafe {
        libc::mmap(ptr::null_mut(), info.ring_size as usize, libc::PROT_READ, libc::MAP_SHARED, fd, 0)
    };
    if map == libc::MAP_FAILED {
        fail("mmap");
    }
    // SAFETY: page 0 of the mapping is the header; it lives until exit.
    let hdr: &'static RingHeader = unsafe { &*(map as *const RingHeader) };
    let count = hdr.record_count as u64;
    if hdr.magic != NAOBODY_RING_MAGIC || count == 0 || count & (count - 1) != 0 {
        eprintln!("ring-reader-rs: the mapping is not a naobody ring");
        exit(1);
    }
    let ring = Ring { base: map as *const u8, hdr, count };

    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut lost: u64 = 0;
    let first = hdr.head.load(Ordering::Acquire);
    let mut cursor = first;
    while want != 0 {
        let head = hdr.head.load(Ordering::Acquire);
        if cursor >= head {
            if hdr.flags.load(Ordering::Relaxed) & NAOBODY_RING_DISCONNECTED != 0 {
                break;
            }
            out.flush().unwrap();
            wait_record(fd);
            continue;
        }
        if head - cursor > count {
            // The writer lapped us: skip to the oldest record left.
            lost += head - cursor - count;
            cursor = head - count;
        }
        let rec = ring.copy(cursor);
        cursor += 1;
        match rec {
            Some(r) => {
                print_record(&mut out, &r).unwrap();
                if want > 0 {
                    want -= 1;
                }
            }
            None => lost += 1, // overwritten before or while we copied it
        }
    }
    out.flush().unwrap();
    eprintln!("from record {}: lost {}", first, lost);
    exit(if want > 0 { 1 } else { 0 });
}
