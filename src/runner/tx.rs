//! The issue loop of benchmarks whose unit of work is a transaction: more
//! than one request, or requests with opens, closes and computation between
//! them (a PostMark transaction, a TPC-B account update, one of Bonnie's
//! chunks, an Andrew file copy).
//!
//! The runner owns the loop ([`Io::transact`]): before each transaction it
//! asks whether the run goes on (the stop, the op budget) and waits for the
//! transaction's turn in a paced run; the benchmark says only what one
//! transaction does ([`Transactions::next`]), issuing its requests through
//! [`Tx`], which records each one. A transaction's requests depend on each
//! other (read the record, then write it back), so they go one at a time:
//! depth 1 through the worker's [`Io`].

use super::{Ctx, Io};
use crate::engine::{Completion, FileId, OpenHow, Req};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use std::io;
use std::path::Path;

/// Where a transaction worker's work comes from.
pub trait Transactions {
    /// Do the next transaction through `tx`; `Ok(false)` when no work is
    /// left (and nothing was done).
    fn next(&mut self, tx: &mut Tx<'_, '_>) -> anyhow::Result<bool>;
}

impl<F> Transactions for F
where
    F: FnMut(&mut Tx<'_, '_>) -> anyhow::Result<bool>,
{
    fn next(&mut self, tx: &mut Tx<'_, '_>) -> anyhow::Result<bool> {
        self(tx)
    }
}

/// One transaction's way to the engine: each request it issues is timed by
/// the engine and recorded in the worker's stats.
pub struct Tx<'t, 'a> {
    pub io: &'t mut Io,
    pub ctx: &'t mut Ctx<'a>,
}

impl Tx<'_, '_> {
    /// Issue `req`, wait for it and record it; an error names the request
    /// and its file.
    #[inline]
    pub fn exec(&mut self, req: Req) -> anyhow::Result<Completion> {
        let c = self.io.exec_named(req)?;
        self.ctx.record(&c);
        Ok(c)
    }

    /// Issue `req` and wait for it, unrecorded: for a benchmark that times
    /// several calls together (a chunk of one-byte writes) or counts a
    /// request as part of another op, and records with [`Tx::ctx`].
    #[inline]
    pub fn exec_unrecorded(&mut self, req: Req) -> io::Result<Completion> {
        self.io.exec(req)
    }

    /// Open `path`, timed and recorded as an [`OpKind::Open`].
    pub fn open(&mut self, path: &Path, how: OpenHow) -> io::Result<FileId> {
        let t = now_ns();
        let f = self.io.open(path, how)?;
        let done = now_ns();
        self.ctx.record_op(OpKind::Open, done - t, 0, done);
        Ok(f)
    }

    /// Close `file`, timed and recorded as an [`OpKind::Close`].
    pub fn close(&mut self, file: FileId) -> io::Result<()> {
        let t = now_ns();
        self.io.close(file)?;
        let done = now_ns();
        self.ctx.record_op(OpKind::Close, done - t, 0, done);
        Ok(())
    }

    /// Record an op the benchmark timed itself from `began_ns` (clock) to
    /// now: a metadata call outside the engine, a whole transaction.
    pub fn record_since(&mut self, kind: OpKind, began_ns: u64, bytes: u64) {
        let done = now_ns();
        self.ctx.record_op(kind, done - began_ns, bytes, done);
    }
}

impl Io {
    /// Run `work` one transaction at a time until it has no more or the run
    /// stops; in a paced run each transaction waits for its turn, and in an
    /// open loop the response times of its requests run from its intended
    /// start ([`Ctx::next_request`]).
    pub fn transact<T: Transactions + ?Sized>(
        &mut self,
        ctx: &mut Ctx,
        work: &mut T,
    ) -> anyhow::Result<()> {
        ctx.transact(|ctx| work.next(&mut Tx { io: self, ctx }))
    }
}

impl Ctx<'_> {
    /// [`Io::transact`] for a benchmark with no engine, whose calls are
    /// all its own (metadata calls, `std::fs`): `work` does one
    /// transaction, records what it timed in the `Ctx` it is given, and
    /// returns `Ok(false)` when no work is left.
    pub fn transact(
        &mut self,
        mut work: impl FnMut(&mut Ctx) -> anyhow::Result<bool>,
    ) -> anyhow::Result<()> {
        while self.next_request() {
            if !work(self)? {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Choice;
    use crate::runner::{NoProgress, StopRule, Worker};

    /// Transactions of a read then a write of the same 512 B, `left` of
    /// them.
    struct Updates {
        io: Io,
        left: u64,
        begun: u64,
    }

    impl Worker for Updates {
        fn kinds(&self) -> &[OpKind] {
            &[OpKind::Read, OpKind::Write]
        }
        fn run(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
            let Updates { io, left, begun } = self;
            io.transact(ctx, &mut |tx: &mut Tx| {
                if *left == 0 {
                    return Ok(false);
                }
                *left -= 1;
                *begun += 1;
                let off = *left * 512;
                tx.exec(Req::read(FileId(0), off, 512))?;
                tx.exec(Req::write(FileId(0), off, 512))?;
                Ok(true)
            })
        }
    }

    fn updates(left: u64) -> Updates {
        Updates {
            io: Io::test(Choice::NULL, 512),
            left,
            begun: 0,
        }
    }

    #[test]
    fn every_request_of_every_transaction_is_recorded_until_the_work_ends() {
        let o = crate::runner::run(StopRule::default(), vec![updates(10)], &NoProgress);
        assert_eq!(o.stats.total_ops(), 20);
        assert_eq!(o.stats.kind(OpKind::Read).unwrap().count, 10);
        assert_eq!(o.stats.kind(OpKind::Write).unwrap().count, 10);
    }

    #[test]
    fn the_op_budget_is_looked_at_between_transactions_never_inside_one() {
        // a budget of 5 requests: the third transaction begins with one
        // left and is finished whole
        let rule = StopRule {
            ops: Some(5),
            ..Default::default()
        };
        let o = crate::runner::run(rule, vec![updates(100)], &NoProgress);
        assert_eq!(o.stats.total_ops(), 6);
    }
}
