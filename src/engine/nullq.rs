//! `nullq`: does no I/O, like `null`, but as a queued engine: it takes up
//! to `depth` requests into flight and completes each after a few polls,
//! out of order. It measures iogauge's own cost at a queue depth (fio's
//! null engine with an iodepth) and proves the runner's issue loop: it
//! refuses a request beyond its depth, or one whose buffer slot is still in
//! flight, with an error instead of a wrong figure.

use super::*;

pub const INFO: EngineInfo = EngineInfo {
    name: "nullq",
    doc: "does no I/O, queued: up to --iodepth requests in flight, each completed after a few polls, out of order (iogauge's own cost at a queue depth)",
    caps: Caps {
        sync: false,
        queued: true,
        direct: true,
        fake: true,
        buffered: false,
        grows_files: true,
        ..Caps::NONE
    },
    make: |o| Ok(Box::new(NullQ::new(o))),
};

/// A request in flight: polls left before it completes, when it was
/// queued and when it was committed.
struct Flight {
    req: Req,
    polls: u32,
    queued_ns: u64,
    committed_ns: u64,
}

pub struct NullQ {
    files: FileTable<()>,
    bufs: Vec<AlignedBuf>,
    depth: usize,
    /// Queued, not yet committed.
    pending: Vec<Flight>,
    /// Committed, not yet reaped.
    flying: Vec<Flight>,
    /// Which buffer slots are in flight.
    busy: Vec<bool>,
    /// A small xorshift state: how many polls each request takes.
    rng: u64,
}

impl NullQ {
    fn new(o: &EngineOpts) -> Self {
        let slots = o.slots.max(o.depth).max(1);
        NullQ {
            files: FileTable::default(),
            bufs: buffer::slots(slots, o.max_len, o.seed),
            depth: usize::from(o.depth.max(1)),
            pending: Vec::new(),
            flying: Vec::new(),
            busy: vec![false; usize::from(slots)],
            rng: o.seed | 1,
        }
    }

    fn polls(&mut self) -> u32 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        1 + (self.rng % 4) as u32
    }

    /// One poll: every committed request comes one step nearer; those that
    /// arrive complete, in the order they arrive (not the order queued).
    fn poll(&mut self, out: &mut Vec<Completion>) -> usize {
        let now = now_ns();
        let mut n = 0;
        let mut i = 0;
        while i < self.flying.len() {
            self.flying[i].polls -= 1;
            if self.flying[i].polls == 0 {
                let f = self.flying.swap_remove(i);
                self.busy[usize::from(f.req.slot)] = false;
                out.push(Completion {
                    req: f.req,
                    bytes: u64::from(f.req.len),
                    lat_ns: now.saturating_sub(f.queued_ns),
                    done_ns: now,
                    sub_ns: f.committed_ns.saturating_sub(f.queued_ns),
                    err: 0,
                });
                n += 1;
            } else {
                i += 1;
            }
        }
        n
    }
}

impl Engine for NullQ {
    fn info(&self) -> &'static EngineInfo {
        &INFO
    }

    fn open(&mut self, path: &Path, _how: OpenHow) -> io::Result<FileId> {
        Ok(self.files.insert((), path))
    }

    fn close(&mut self, file: FileId) -> io::Result<()> {
        self.files.remove(file)
    }

    fn queue(&mut self, req: Req) -> io::Result<Queued> {
        self.files.get(req.file)?;
        if self.pending.len() + self.flying.len() >= self.depth {
            return Ok(Queued::Busy);
        }
        let slot = usize::from(req.slot);
        match self.busy.get(slot) {
            Some(false) => self.busy[slot] = true,
            Some(true) => {
                return Err(io::Error::other(format!(
                    "nullq: buffer slot {slot} is queued while still in flight"
                )));
            }
            None => {
                return Err(io::Error::other(format!(
                    "nullq: buffer slot {slot} does not exist ({} slots)",
                    self.busy.len()
                )));
            }
        }
        let polls = self.polls();
        self.pending.push(Flight {
            req,
            polls,
            queued_ns: now_ns(),
            committed_ns: 0,
        });
        Ok(Queued::InFlight)
    }

    fn commit(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let now = now_ns();
            for f in &mut self.pending {
                f.committed_ns = now;
            }
            self.flying.append(&mut self.pending);
        }
        Ok(())
    }

    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> io::Result<usize> {
        if min > self.flying.len() {
            return Err(io::Error::other(format!(
                "nullq: asked to reap {min} with {} committed",
                self.flying.len()
            )));
        }
        let mut n = self.poll(out);
        while n < min {
            n += self.poll(out);
        }
        Ok(n)
    }

    fn reap_until(
        &mut self,
        min: usize,
        deadline_ns: u64,
        out: &mut Vec<Completion>,
    ) -> io::Result<usize> {
        let mut n = self.poll(out);
        while n < min.min(self.flying.len() + n) && now_ns() < deadline_ns {
            n += self.poll(out);
        }
        Ok(n)
    }

    fn in_flight(&self) -> usize {
        self.pending.len() + self.flying.len()
    }

    fn buf_mut(&mut self, slot: u16) -> &mut [u8] {
        &mut self.bufs[usize::from(slot)]
    }

    fn unlink(&mut self, _path: &Path) -> io::Result<()> {
        Ok(())
    }

    fn path(&self, file: FileId) -> &Path {
        self.files.path(file)
    }
}
