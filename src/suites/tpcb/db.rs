//! The TPC-B database on plain record files, and one debit-credit
//! transaction through an engine.
//!
//! # Files
//!
//! Four files in one directory, made by [`create`] (untimed):
//!
//! | file | records | record |
//! | --- | --- | --- |
//! | `branches` | one per branch | 100 B |
//! | `tellers` | 10 per branch | 100 B |
//! | `accounts` | 100 000 per branch | 100 B |
//! | `history` | one per transaction, appended | 50 B |
//!
//! Record `i` of a table sits at byte `i × 100`; teller `t` belongs to
//! branch `t / 10`, account `a` to branch `a / 100 000`. Every balance
//! starts at 0 and the history starts empty.
//!
//! # Record layout (little-endian)
//!
//! Account, teller and branch records, 100 bytes:
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..4 | id, `u32` (the record's index in its file) |
//! | 4..8 | branch id, `u32` (a branch record's is its own id) |
//! | 8..16 | balance, `i64` |
//! | 16..100 | filler |
//!
//! History records, 50 bytes:
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..4 | account id, `u32` |
//! | 4..8 | teller id, `u32` |
//! | 8..12 | branch id, `u32` |
//! | 12..20 | delta, `i64` |
//! | 20..28 | timestamp, `u64` (ns on the monotonic clock, the transaction's start) |
//! | 28..50 | filler |
//!
//! Filler bytes mean nothing: [`create`] leaves the engine's buffer
//! contents there (incompressible, so compressing file systems store the
//! records at full size) and a transaction rewrites what it read.
//!
//! # A transaction
//!
//! [`Terminal::execute`] follows TPC-B's profile: for the branch, then the
//! teller, then the account, it takes the record's lock, reads the record,
//! adds the delta and writes it back at its offset; then it writes the
//! history record at the next free slot (taken from one atomic counter, so
//! concurrent terminals never collide), and commits: fsync of the history
//! file. Then it releases the locks.
//!
//! **Durability.** Only the history file is synced at commit: it is the
//! database's log. Every balance starts at 0, so the history alone
//! determines every balance (an account's balance is the sum of its
//! history deltas), and a committed transaction survives a crash even if
//! the record files' pages were never written back, as with a database that
//! forces its log at commit and writes data pages lazily. A history slot
//! taken by a transaction that never committed reads as zeros (delta 0).
//!
//! **Concurrency.** Many terminals (each with its own engine and file
//! descriptors) run at once. Updates are serialisable by strict two-phase
//! locking: one lock per branch and per teller, and account locks striped
//! (account `a` → stripe `a mod S`), taken always in the order branch,
//! teller, account (so no deadlock: a transaction holds at most one lock of
//! each table) and held across the record's I/O until after the commit.
//! Waiting for a lock is part of the workload and is recorded as
//! [`OpKind::Lock`]. (A teller is only ever updated under its branch's
//! lock, so its own lock never waits; an account may be updated by another
//! branch's transaction.) At TPC-B's scale (one branch per tps) the branch lock
//! is shared by about one transaction per second.
//!
//! **Engines.** The terminals share the files through the kernel, so the
//! engine must pass each operation to it: psync or sync. The buffered
//! engine keeps writes in its own memory where other terminals cannot see
//! them, and is refused; 100-byte records cannot be read with O_DIRECT.

use crate::engine::{FileId, OpenHow, Req, untimed};
use crate::measure::OpKind;
use crate::measure::clock::now_ns;
use crate::runner::{Ctx, Io, Tx};
use crate::workload::{Prng, below, unit_f64};
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// Tellers per branch (TPC-B).
pub const TELLERS_PER_BRANCH: u32 = 10;
/// Accounts per branch (TPC-B).
pub const ACCOUNTS_PER_BRANCH: u32 = 100_000;
/// Bytes of an account, teller or branch record.
pub const RECORD_BYTES: u64 = 100;
/// Bytes of a history record.
pub const HISTORY_BYTES: u64 = 50;
/// Share of transactions whose account is in the teller's branch.
pub const LOCAL_ACCOUNT_SHARE: f64 = 0.85;
/// Largest amount of a transaction, either way.
pub const MAX_DELTA: i64 = 999_999;
/// Lock stripes for the accounts (at most; one per account below that).
pub const ACCOUNT_STRIPES: u32 = 1 << 14;

/// The size of the database: TPC-B's ratios per branch.
///
/// Invariant: `1 ≤ branches ≤` [`Scale::MAX_BRANCHES`] (account ids are
/// `u32`); a scale read back is checked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawScale")]
pub struct Scale {
    pub branches: u32,
    /// [`ACCOUNTS_PER_BRANCH`] except in tests.
    accounts_per_branch: u32,
}

/// A [`Scale`] as read, before its invariant is checked.
#[derive(Deserialize)]
struct RawScale {
    branches: u32,
    accounts_per_branch: u32,
}

impl TryFrom<RawScale> for Scale {
    type Error = String;
    fn try_from(r: RawScale) -> Result<Scale, String> {
        let accounts = r.branches.checked_mul(r.accounts_per_branch);
        if r.branches == 0 || r.branches > Scale::MAX_BRANCHES || accounts.is_none_or(|a| a == 0) {
            return Err(format!(
                "a TPC-B database has 1 to {} branches of at least one account, not {} of {}",
                Scale::MAX_BRANCHES,
                r.branches,
                r.accounts_per_branch
            ));
        }
        Ok(Scale {
            branches: r.branches,
            accounts_per_branch: r.accounts_per_branch,
        })
    }
}

impl Scale {
    /// The most branches whose accounts `u32` ids can number.
    pub const MAX_BRANCHES: u32 = u32::MAX / ACCOUNTS_PER_BRANCH;

    /// `branches` branches at TPC-B's ratios.
    ///
    /// # Panics
    /// If `branches` is 0 or above [`Scale::MAX_BRANCHES`].
    pub fn new(branches: u32) -> Scale {
        assert!(
            (1..=Self::MAX_BRANCHES).contains(&branches),
            "a TPC-B database has 1 to {} branches, not {branches}",
            Self::MAX_BRANCHES
        );
        Scale {
            branches,
            accounts_per_branch: ACCOUNTS_PER_BRANCH,
        }
    }

    /// The database TPC-B requires to report `tps`: 10 MB of account data
    /// per transaction per second, i.e. one branch per tps, rounded up, at
    /// least one (and at most [`Scale::MAX_BRANCHES`]; NaN gives one).
    pub fn for_tps(tps: f64) -> Scale {
        // `as` saturates: NaN and negatives give 0
        let b = tps.ceil() as u32;
        Scale::new(b.clamp(1, Self::MAX_BRANCHES))
    }

    /// A small database for tests: `accounts_per_branch` accounts per
    /// branch instead of 100 000 (not a valid TPC-B scale).
    #[cfg(test)]
    pub(crate) fn tiny(branches: u32, accounts_per_branch: u32) -> Scale {
        assert!(branches >= 1 && accounts_per_branch >= 1);
        Scale {
            branches,
            accounts_per_branch,
        }
    }

    pub fn tellers(&self) -> u32 {
        self.branches * TELLERS_PER_BRANCH
    }

    pub fn accounts_per_branch(&self) -> u32 {
        self.accounts_per_branch
    }

    pub fn accounts(&self) -> u32 {
        self.branches * self.accounts_per_branch
    }

    /// The largest throughput (tps) this database may report.
    pub fn max_tps(&self) -> u32 {
        self.branches
    }

    pub fn branch_bytes(&self) -> u64 {
        self.branches as u64 * RECORD_BYTES
    }

    pub fn teller_bytes(&self) -> u64 {
        self.tellers() as u64 * RECORD_BYTES
    }

    pub fn account_bytes(&self) -> u64 {
        self.accounts() as u64 * RECORD_BYTES
    }

    /// The history file after `transactions` transactions.
    pub fn history_bytes(&self, transactions: u64) -> u64 {
        transactions * HISTORY_BYTES
    }

    /// The three record files together (the history starts empty).
    pub fn bytes(&self) -> u64 {
        self.branch_bytes() + self.teller_bytes() + self.account_bytes()
    }
}

/// Where a database's files are, and its scale.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Files {
    pub scale: Scale,
    pub accounts: PathBuf,
    pub tellers: PathBuf,
    pub branches: PathBuf,
    pub history: PathBuf,
}

impl Files {
    /// The files of a database of `scale` in `dir` (named, not made).
    pub fn in_dir(dir: &Path, scale: Scale) -> Files {
        Files {
            scale,
            accounts: dir.join("accounts"),
            tellers: dir.join("tellers"),
            branches: dir.join("branches"),
            history: dir.join("history"),
        }
    }
}

/// Write a record's header into `rec` (at least 16 bytes).
#[inline]
fn put_record(rec: &mut [u8], id: u32, branch: u32, balance: i64) {
    rec[0..4].copy_from_slice(&id.to_le_bytes());
    rec[4..8].copy_from_slice(&branch.to_le_bytes());
    rec[8..16].copy_from_slice(&balance.to_le_bytes());
}

#[inline]
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

#[inline]
fn i64_at(b: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// The error `e` of `what` on `path`, naming the path.
#[cold]
fn on(path: &Path, what: &str, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{what} {}: {e}", path.display()))
}

#[cold]
fn bad_data(path: &Path, why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {why}", path.display()),
    )
}

/// Records of `bytes` that one buffer of `engine` holds (at least one).
fn per_buffer(engine: &mut Io, bytes: u64) -> io::Result<usize> {
    let n = engine.buf_mut(0).len() / bytes as usize;
    if n == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the engine's buffers are smaller than a {bytes}-byte record; make it with a larger max_len"
            ),
        ));
    }
    Ok(n)
}

/// Make the database of `scale` in `dir` (which must exist): the three
/// record files with every balance 0 and an empty history, each written in
/// writes as large as `engine`'s buffer (make it with a large `max_len`,
/// e.g. 1 MiB) and synced. Untimed. Existing files are replaced.
pub fn create(dir: &Path, scale: &Scale, engine: &mut Io) -> io::Result<Files> {
    let files = Files::in_dir(dir, *scale);
    let apb = scale.accounts_per_branch;
    untimed(|| {
        write_table(engine, &files.branches, scale.branches, |i| i)?;
        write_table(engine, &files.tellers, scale.tellers(), |i| {
            i / TELLERS_PER_BRANCH
        })?;
        write_table(engine, &files.accounts, scale.accounts(), |i| i / apb)?;
        let p = &files.history;
        let h = engine.open(p, OpenHow::CREATE)?;
        engine
            .exec(Req::fsync(h))
            .map_err(|e| on(p, "sync of", e))?;
        engine.close(h).map_err(|e| on(p, "close of", e))
    })?;
    Ok(files)
}

/// Write `n` records of balance 0, record `i` owned by branch `owner(i)`.
fn write_table(engine: &mut Io, path: &Path, n: u32, owner: impl Fn(u32) -> u32) -> io::Result<()> {
    let per = per_buffer(engine, RECORD_BYTES)?;
    let rb = RECORD_BYTES as usize;
    let f = engine.open(path, OpenHow::CREATE)?;
    let mut i = 0u32;
    while i < n {
        let k = per.min((n - i) as usize);
        let buf = engine.buf_mut(0);
        for (j, rec) in buf[..k * rb].chunks_exact_mut(rb).enumerate() {
            let id = i + j as u32;
            put_record(rec, id, owner(id), 0);
        }
        let len = (k * rb) as u32;
        let req = Req::write(f, i as u64 * RECORD_BYTES, len);
        let c = engine.exec(req).map_err(|e| on(path, "write of", e))?;
        if c.bytes != len as u64 {
            engine
                .finish_write(req, c.bytes)
                .map_err(|e| on(path, "write of", e))?;
        }
        i += k as u32;
    }
    engine
        .exec(Req::fsync(f))
        .map_err(|e| on(path, "sync of", e))?;
    engine.close(f).map_err(|e| on(path, "close of", e))
}

/// One debit-credit transaction: `delta` added to the balances of
/// `account`, `teller` and `branch` (the teller's branch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Txn {
    pub account: u32,
    pub teller: u32,
    pub branch: u32,
    pub delta: i64,
}

/// The next transaction by TPC-B's rules: a uniform teller; its branch; an
/// account of that branch with probability 0.85 (always with one branch),
/// else uniform over the accounts of the other branches; a delta uniform
/// in [-999 999, +999 999].
#[inline]
pub fn next_txn(rng: &mut Prng, scale: &Scale) -> Txn {
    let teller = below(rng, scale.tellers() as u64) as u32;
    let branch = teller / TELLERS_PER_BRANCH;
    let apb = scale.accounts_per_branch;
    let home = if scale.branches == 1 || unit_f64(rng) < LOCAL_ACCOUNT_SHARE {
        branch
    } else {
        // one of the other branches, uniformly
        let b = below(rng, scale.branches as u64 - 1) as u32;
        b + u32::from(b >= branch)
    };
    let account = home * apb + below(rng, apb as u64) as u32;
    let delta = below(rng, 2 * MAX_DELTA as u64 + 1) as i64 - MAX_DELTA;
    Txn {
        account,
        teller,
        branch,
        delta,
    }
}

/// Where a terminal's operations are recorded: the runner's [`Ctx`] in a
/// run, [`NoRecord`] or a test's tally elsewhere.
pub trait Recorder {
    /// One finished operation (as [`Ctx::record_op`]).
    fn op(&mut self, kind: OpKind, lat_ns: u64, bytes: u64, done_ns: u64);
}

impl Recorder for Ctx<'_> {
    #[inline(always)]
    fn op(&mut self, kind: OpKind, lat_ns: u64, bytes: u64, done_ns: u64) {
        self.record_op(kind, lat_ns, bytes, done_ns);
    }
}

/// A [`Recorder`] that keeps nothing.
pub struct NoRecord;

impl Recorder for NoRecord {
    #[inline(always)]
    fn op(&mut self, _: OpKind, _: u64, _: u64, _: u64) {}
}

/// One lock, alone on its cache line.
#[repr(align(64))]
#[derive(Default)]
struct Stripe(Mutex<()>);

/// The next history slot, alone on its cache line.
#[repr(align(64))]
struct Counter(AtomicU64);

/// What all terminals of a database share: its files, the record locks and
/// the history's next free slot. Made once, before the run (untimed).
pub struct Db {
    files: Files,
    branch_locks: Box<[Stripe]>,
    teller_locks: Box<[Stripe]>,
    account_locks: Box<[Stripe]>,
    history_next: Counter,
}

impl Db {
    /// The shared state of the database `files` (made by [`create`]); the
    /// history is appended to after the records it already holds.
    pub fn new(files: Files) -> io::Result<Db> {
        let p = &files.history;
        let len = std::fs::metadata(p).map_err(|e| on(p, "stat of", e))?.len();
        if len % HISTORY_BYTES != 0 {
            return Err(bad_data(
                p,
                format!(
                    "{len} bytes is not a whole number of {HISTORY_BYTES}-byte history records"
                ),
            ));
        }
        let s = files.scale;
        let stripes = |n: u32| (0..n).map(|_| Stripe::default()).collect::<Box<[_]>>();
        Ok(Db {
            branch_locks: stripes(s.branches),
            teller_locks: stripes(s.tellers()),
            account_locks: stripes(s.accounts().min(ACCOUNT_STRIPES)),
            history_next: Counter(AtomicU64::new(len / HISTORY_BYTES)),
            files,
        })
    }

    pub fn files(&self) -> &Files {
        &self.files
    }

    /// History records written or being written so far.
    pub fn history_records(&self) -> u64 {
        self.history_next.0.load(Ordering::Relaxed)
    }
}

/// Take `s`, recording the wait as a [`OpKind::Lock`].
#[inline]
fn lock<'a, R: Recorder + ?Sized>(rec: &mut R, s: &'a Stripe) -> MutexGuard<'a, ()> {
    let t = now_ns();
    // a terminal that panicked with the lock held left no data behind it
    let g = s.0.lock().unwrap_or_else(PoisonError::into_inner);
    let d = now_ns();
    rec.op(OpKind::Lock, d - t, 0, d);
    g
}

/// The four files as one terminal's engine opened them.
#[derive(Clone, Copy, Debug)]
struct Ids {
    accounts: FileId,
    tellers: FileId,
    branches: FileId,
    history: FileId,
}

/// One driver of transactions: its own engine with the database's files
/// open, and the shared [`Db`]. Each concurrent driver has its own.
pub struct Terminal {
    engine: Io,
    open: Open,
}

/// The database as one terminal has it open: all a transaction needs
/// beside the engine, which the runner lends it ([`Terminal::run`]).
struct Open {
    db: Arc<Db>,
    ids: Ids,
    /// Check each record's id and branch (off for an engine that does no I/O).
    verify: bool,
}

impl Terminal {
    /// How the terminal's engine was set up ([`Io::mode`]).
    pub fn engine_mode(&self) -> Option<String> {
        self.engine.mode()
    }

    /// Open the database's files with `engine` (untimed). Refuses an
    /// engine that keeps writes in its own buffer, and one whose buffer
    /// cannot hold a record.
    pub fn open(db: Arc<Db>, mut engine: Io) -> io::Result<Terminal> {
        let info = engine.info();
        if info.caps.buffered {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "engine '{}' keeps writes in its own buffer, where other terminals cannot see them; use psync or sync",
                    info.name
                ),
            ));
        }
        per_buffer(&mut engine, RECORD_BYTES)?;
        let f = &db.files;
        let mut open = |p: &Path| engine.open(p, OpenHow::READ_WRITE);
        let ids = Ids {
            accounts: open(&f.accounts)?,
            tellers: open(&f.tellers)?,
            branches: open(&f.branches)?,
            history: open(&f.history)?,
        };
        let verify = !info.caps.fake;
        Ok(Terminal {
            engine,
            open: Open { db, ids, verify },
        })
    }

    pub fn db(&self) -> &Arc<Db> {
        &self.open.db
    }

    /// Close the files and hand the engine back.
    pub fn into_engine(mut self) -> io::Result<Io> {
        let Ids {
            accounts,
            tellers,
            branches,
            history,
        } = self.open.ids;
        for id in [accounts, tellers, branches, history] {
            self.engine.close(id)?;
        }
        Ok(self.engine)
    }

    /// Transactions from `next`, one after another in the runner's issue
    /// loop until the run stops, each recorded in `ctx`.
    pub fn run(
        &mut self,
        ctx: &mut Ctx,
        commit_sync: bool,
        mut next: impl FnMut() -> Txn,
    ) -> anyhow::Result<()> {
        let Terminal { engine, open } = self;
        engine.transact(ctx, &mut |tx: &mut Tx| {
            open.execute(tx.io, tx.ctx, &next(), commit_sync)?;
            Ok(true)
        })
    }

    /// Run `txn`: lock, read, update and write back the branch, the teller
    /// and the account record (in that order), write the history record at
    /// the next slot, fsync the history file if `commit_sync`, unlock.
    ///
    /// Records each read and write (the history record as an
    /// [`OpKind::Append`], though it is a write at its slot's offset), each
    /// lock wait, the fsync, and the whole as one [`OpKind::Transaction`]
    /// from before the first lock to after the last unlock. Allocates
    /// nothing. On an error the locks are released; the transaction may be
    /// partly applied.
    pub fn execute<R: Recorder + ?Sized>(
        &mut self,
        rec: &mut R,
        txn: &Txn,
        commit_sync: bool,
    ) -> io::Result<()> {
        self.open.execute(&mut self.engine, rec, txn, commit_sync)
    }
}

impl Open {
    /// [`Terminal::execute`] through `engine`.
    fn execute<R: Recorder + ?Sized>(
        &self,
        engine: &mut Io,
        rec: &mut R,
        txn: &Txn,
        commit_sync: bool,
    ) -> io::Result<()> {
        let Open { db, ids, verify } = self;
        let verify = *verify;
        let scale = db.files.scale;
        if txn.teller >= scale.tellers()
            || txn.branch != txn.teller / TELLERS_PER_BRANCH
            || txn.account >= scale.accounts()
        {
            return Err(bad_txn(txn, &scale));
        }
        let home = txn.account / scale.accounts_per_branch;
        let t0 = now_ns();
        let b = lock(rec, &db.branch_locks[txn.branch as usize]);
        update(
            engine,
            rec,
            ids.branches,
            txn.branch,
            txn.branch,
            txn,
            verify,
        )?;
        let t = lock(rec, &db.teller_locks[txn.teller as usize]);
        update(
            engine,
            rec,
            ids.tellers,
            txn.teller,
            txn.branch,
            txn,
            verify,
        )?;
        let stripe = txn.account as usize % db.account_locks.len();
        let a = lock(rec, &db.account_locks[stripe]);
        update(engine, rec, ids.accounts, txn.account, home, txn, verify)?;

        let slot = db.history_next.0.fetch_add(1, Ordering::Relaxed);
        let hb = HISTORY_BYTES as usize;
        let h = &mut engine.buf_mut(0)[..hb];
        h[0..4].copy_from_slice(&txn.account.to_le_bytes());
        h[4..8].copy_from_slice(&txn.teller.to_le_bytes());
        h[8..12].copy_from_slice(&txn.branch.to_le_bytes());
        h[12..20].copy_from_slice(&txn.delta.to_le_bytes());
        h[20..28].copy_from_slice(&t0.to_le_bytes());
        let req = Req::write(ids.history, slot * HISTORY_BYTES, hb as u32);
        let what = "write of history record";
        let c = engine
            .exec(req)
            .map_err(|e| failed(engine, ids.history, what, slot, e))?;
        if c.bytes != HISTORY_BYTES {
            engine
                .finish_write(req, c.bytes)
                .map_err(|e| failed(engine, ids.history, what, slot, e))?;
        }
        rec.op(OpKind::Append, c.lat_ns, c.bytes, c.done_ns);
        if commit_sync {
            let c = engine.exec(Req::fsync(ids.history)).map_err(|e| {
                let p = engine.path(ids.history);
                on(p, "commit (fsync) of", e)
            })?;
            rec.op(OpKind::Fsync, c.lat_ns, 0, c.done_ns);
        }
        drop(a);
        drop(t);
        drop(b);
        let end = now_ns();
        rec.op(OpKind::Transaction, end - t0, 0, end);
        Ok(())
    }
}

/// Read record `i` of `file`, add the delta, write it back; the record
/// must carry id `i` and branch `owner` (when `verify`).
#[inline]
fn update<R: Recorder + ?Sized>(
    engine: &mut Io,
    rec: &mut R,
    file: FileId,
    i: u32,
    owner: u32,
    txn: &Txn,
    verify: bool,
) -> io::Result<()> {
    let off = i as u64 * RECORD_BYTES;
    let len = RECORD_BYTES as u32;
    let c = engine
        .exec(Req::read(file, off, len))
        .map_err(|e| failed(engine, file, "read of record", i as u64, e))?;
    if c.bytes != RECORD_BYTES {
        return Err(short(engine, file, "record", i as u64, c.bytes));
    }
    rec.op(OpKind::Read, c.lat_ns, c.bytes, c.done_ns);
    let r = &mut engine.buf_mut(0)[..RECORD_BYTES as usize];
    if verify && (u32_at(r, 0) != i || u32_at(r, 4) != owner) {
        let (id, br) = (u32_at(r, 0), u32_at(r, 4));
        return Err(bad_data(
            engine.path(file),
            format!("record {i} says it is record {id} of branch {br}, not of branch {owner}"),
        ));
    }
    let balance = i64_at(r, 8).wrapping_add(txn.delta);
    r[8..16].copy_from_slice(&balance.to_le_bytes());
    let c = engine
        .exec(Req::write(file, off, len))
        .map_err(|e| failed(engine, file, "write of record", i as u64, e))?;
    if c.bytes != RECORD_BYTES {
        engine
            .finish_write(Req::write(file, off, len), c.bytes)
            .map_err(|e| failed(engine, file, "write of record", i as u64, e))?;
    }
    rec.op(OpKind::Write, c.lat_ns, c.bytes, c.done_ns);
    Ok(())
}

#[cold]
fn failed(engine: &Io, file: FileId, what: &str, i: u64, e: io::Error) -> io::Error {
    on(engine.path(file), &format!("{what} {i} in"), e)
}

#[cold]
fn short(engine: &Io, file: FileId, what: &str, i: u64, got: u64) -> io::Error {
    bad_data(
        engine.path(file),
        format!("{what} {i} moved {got} bytes: the file is shorter than the database's scale"),
    )
}

#[cold]
fn bad_txn(txn: &Txn, s: &Scale) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{txn:?} does not fit a database of {} branches ({} tellers, {} accounts), or its teller is not of its branch",
            s.branches,
            s.tellers(),
            s.accounts()
        ),
    )
}

/// What [`check_consistency`] found.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[schemars(rename = "tpcbConsistency")]
pub struct Sums {
    /// The sum of the accounts' balances.
    pub accounts: i64,
    /// The sum of the tellers' balances.
    pub tellers: i64,
    /// The sum of the branches' balances.
    pub branches: i64,
    /// The sum of the history's deltas.
    pub history: i64,
    /// History records.
    pub history_count: u64,
}

impl Sums {
    /// Whether the account, teller, branch and history sums are equal, as
    /// they are when every transaction was applied whole. (Sums wrap
    /// around alike, so the comparison holds even then.)
    pub fn consistent(&self) -> bool {
        self.accounts == self.tellers
            && self.tellers == self.branches
            && self.branches == self.history
    }
}

/// Read the whole database (untimed) and sum its balances and history
/// deltas. Fails if a file's size does not fit the scale, or a record's id
/// or branch is not where it should be.
pub fn check_consistency(files: &Files, engine: &mut Io) -> io::Result<Sums> {
    let s = files.scale;
    let apb = s.accounts_per_branch;
    untimed(|| {
        let branches = sum_table(engine, &files.branches, s.branches, |i| i)?;
        let tellers = sum_table(engine, &files.tellers, s.tellers(), |i| {
            i / TELLERS_PER_BRANCH
        })?;
        let accounts = sum_table(engine, &files.accounts, s.accounts(), |i| i / apb)?;
        let (history, history_count) = sum_history(engine, &files.history)?;
        Ok(Sums {
            accounts,
            tellers,
            branches,
            history,
            history_count,
        })
    })
}

/// Read `len` bytes at `off` of `f` into buffer 0, all of them.
fn read_full(engine: &mut Io, f: FileId, path: &Path, off: u64, len: usize) -> io::Result<()> {
    let c = engine
        .exec(Req::read(f, off, len as u32))
        .map_err(|e| on(path, "read of", e))?;
    if c.bytes != len as u64 {
        return Err(bad_data(
            path,
            format!("read of {len} bytes at {off} returned {}", c.bytes),
        ));
    }
    Ok(())
}

/// The sum of the balances of a table of `n` records.
fn sum_table(engine: &mut Io, path: &Path, n: u32, owner: impl Fn(u32) -> u32) -> io::Result<i64> {
    let want = n as u64 * RECORD_BYTES;
    let len = std::fs::metadata(path)
        .map_err(|e| on(path, "stat of", e))?
        .len();
    if len != want {
        return Err(bad_data(
            path,
            format!("{len} bytes, where the database's scale needs {want}"),
        ));
    }
    let mut sum = 0i64;
    scan(engine, path, u64::from(n), RECORD_BYTES, |i, r| {
        let at = i as u32;
        let (id, br) = (u32_at(r, 0), u32_at(r, 4));
        if id != at || br != owner(at) {
            return Err(bad_data(
                path,
                format!(
                    "record {at} says it is record {id} of branch {br}, not of branch {}",
                    owner(at)
                ),
            ));
        }
        sum = sum.wrapping_add(i64_at(r, 8));
        Ok(())
    })?;
    Ok(sum)
}

/// Read records `0..n` of `rec` bytes of `path`, as many at a time as
/// the engine's buffer holds, and hand each to `each` with its index;
/// stops at the first error.
fn scan(
    engine: &mut Io,
    path: &Path,
    n: u64,
    rec: u64,
    mut each: impl FnMut(u64, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let per = per_buffer(engine, rec)? as u64;
    let f = engine.open(path, OpenHow::READ)?;
    let mut read = || {
        let mut i = 0;
        while i < n {
            let k = per.min(n - i);
            let len = (k * rec) as usize;
            read_full(engine, f, path, i * rec, len)?;
            let records = engine.buf_mut(0)[..len].chunks_exact(rec as usize);
            for (j, r) in (i..).zip(records) {
                each(j, r)?;
            }
            i += k;
        }
        Ok(())
    };
    let r = read();
    engine.close(f).map_err(|e| on(path, "close of", e))?;
    r
}

/// The sum of the history's deltas, and its record count.
fn sum_history(engine: &mut Io, path: &Path) -> io::Result<(i64, u64)> {
    let len = std::fs::metadata(path)
        .map_err(|e| on(path, "stat of", e))?
        .len();
    if len % HISTORY_BYTES != 0 {
        return Err(bad_data(
            path,
            format!("{len} bytes is not a whole number of {HISTORY_BYTES}-byte history records"),
        ));
    }
    let n = len / HISTORY_BYTES;
    let mut sum = 0i64;
    scan(engine, path, n, HISTORY_BYTES, |_, h| {
        sum = sum.wrapping_add(i64_at(h, 12));
        Ok(())
    })?;
    Ok((sum, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Choice;
    use crate::workload::worker_rng;
    use std::sync::Mutex as StdMutex;

    fn psync(max_len: usize) -> Io {
        Io::test(Choice::PSYNC, max_len)
    }

    fn txn(account: u32, teller: u32, branch: u32, delta: i64) -> Txn {
        Txn {
            account,
            teller,
            branch,
            delta,
        }
    }

    fn make_db(dir: &Path, scale: Scale) -> Arc<Db> {
        let files = create(dir, &scale, &mut psync(64 << 10)).unwrap();
        Arc::new(Db::new(files).unwrap())
    }

    #[test]
    fn scale_follows_tpcb_ratios() {
        let s = Scale::new(3);
        assert_eq!((s.tellers(), s.accounts()), (30, 300_000));
        assert_eq!(
            s.account_bytes(),
            30_000_000,
            "10 MB of accounts per branch"
        );
        assert_eq!(s.teller_bytes(), 3_000);
        assert_eq!(s.branch_bytes(), 300);
        assert_eq!(s.history_bytes(7), 350);
        assert_eq!(s.bytes(), 30_003_300);
        // one branch per tps claimed, rounded up, at least one
        assert_eq!(Scale::for_tps(1.0).branches, 1);
        assert_eq!(Scale::for_tps(12.2).branches, 13);
        assert_eq!(Scale::for_tps(0.0).branches, 1);
        assert_eq!(Scale::for_tps(-5.0).branches, 1);
        assert_eq!(Scale::for_tps(f64::NAN).branches, 1);
        assert_eq!(Scale::for_tps(1e12).branches, Scale::MAX_BRANCHES);
        assert_eq!(Scale::for_tps(40.0).max_tps(), 40);
        // the largest scale's account ids fit a u32
        let most = Scale::new(Scale::MAX_BRANCHES).accounts();
        assert_eq!(most as u64, Scale::MAX_BRANCHES as u64 * 100_000);
    }

    #[test]
    fn a_scale_read_back_is_checked() {
        let s = Scale::tiny(2, 100);
        let back: Scale = serde_json::from_str(&serde_json::to_string(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        for bad in [
            r#"{"branches":0,"accounts_per_branch":5}"#,
            r#"{"branches":2,"accounts_per_branch":0}"#,
            r#"{"branches":40000,"accounts_per_branch":200000}"#,
        ] {
            assert!(serde_json::from_str::<Scale>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    #[should_panic(expected = "branches")]
    fn zero_branches_are_refused() {
        Scale::new(0);
    }

    #[test]
    fn files_have_the_sizes_of_their_scale() {
        let dir = tempfile::tempdir().unwrap();
        let scale = Scale::new(1);
        let files = create(dir.path(), &scale, &mut psync(1 << 20)).unwrap();
        let len = |p: &Path| std::fs::metadata(p).unwrap().len();
        assert_eq!(len(&files.accounts), scale.account_bytes());
        assert_eq!(len(&files.accounts), 10_000_000);
        assert_eq!(len(&files.tellers), scale.teller_bytes());
        assert_eq!(len(&files.branches), scale.branch_bytes());
        assert_eq!(len(&files.history), 0);
        let sums = check_consistency(&files, &mut psync(64 << 10)).unwrap();
        assert_eq!(sums, Sums::default());
        assert!(sums.consistent());
        // the layout: account 54 321 of branch 0, balance 0
        let raw = std::fs::read(&files.accounts).unwrap();
        let r = &raw[54_321 * 100..54_322 * 100];
        assert_eq!((u32_at(r, 0), u32_at(r, 4), i64_at(r, 8)), (54_321, 0, 0));
    }

    #[test]
    fn transactions_follow_tpcb_rules() {
        let scale = Scale::new(10);
        let mut rng = worker_rng(7, 0);
        let n = 10_000;
        let mut local = 0;
        let (mut lo, mut hi) = (0i64, 0i64);
        let mut branches_seen = [false; 10];
        for _ in 0..n {
            let t = next_txn(&mut rng, &scale);
            assert!(t.teller < scale.tellers());
            assert_eq!(t.branch, t.teller / TELLERS_PER_BRANCH);
            assert!(t.account < scale.accounts());
            assert!((-MAX_DELTA..=MAX_DELTA).contains(&t.delta));
            let home = t.account / ACCOUNTS_PER_BRANCH;
            branches_seen[home as usize] = true;
            local += usize::from(home == t.branch);
            lo = lo.min(t.delta);
            hi = hi.max(t.delta);
        }
        let share = local as f64 / n as f64;
        assert!((share - 0.85).abs() < 0.01, "local share {share}");
        assert!(branches_seen.iter().all(|&b| b));
        // the deltas span their range, both ways
        assert!(lo < -990_000 && hi > 990_000, "{lo}..{hi}");
        // one branch: always local
        let one = Scale::new(1);
        for _ in 0..1000 {
            let t = next_txn(&mut rng, &one);
            assert!(t.teller < 10 && t.branch == 0 && t.account < ACCOUNTS_PER_BRANCH);
        }
    }

    /// Run `per` transactions on each of `threads` terminals at once.
    fn run_concurrently(db: &Arc<Db>, threads: usize, per: usize, commit_sync: bool) {
        std::thread::scope(|s| {
            for w in 0..threads {
                let db = Arc::clone(db);
                s.spawn(move || {
                    let scale = db.files().scale;
                    let mut term = Terminal::open(db, psync(4096)).unwrap();
                    let mut rng = worker_rng(42, w);
                    for _ in 0..per {
                        let t = next_txn(&mut rng, &scale);
                        term.execute(&mut NoRecord, &t, commit_sync).unwrap();
                    }
                    term.into_engine().unwrap();
                });
            }
        });
    }

    #[test]
    fn concurrent_transactions_stay_consistent() {
        let dir = tempfile::tempdir().unwrap();
        // few branches and accounts: much contention on every lock
        let db = make_db(dir.path(), Scale::tiny(3, 50));
        run_concurrently(&db, 4, 500, false);
        assert_eq!(db.history_records(), 2000);
        let sums = check_consistency(db.files(), &mut psync(64 << 10)).unwrap();
        assert!(sums.consistent(), "{sums:?}");
        assert_eq!(sums.history_count, 2000);
        assert_ne!(sums.history, 0, "the transactions moved money");
        let len = std::fs::metadata(&db.files().history).unwrap().len();
        assert_eq!(len, db.files().scale.history_bytes(2000));
    }

    #[test]
    fn synced_commits_stay_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let db = make_db(dir.path(), Scale::tiny(2, 100));
        run_concurrently(&db, 3, 100, true);
        let sums = check_consistency(db.files(), &mut psync(4096)).unwrap();
        assert!(sums.consistent(), "{sums:?}");
        assert_eq!(sums.history_count, 300);
        // a second run appends after the first one's history
        let db = Arc::new(Db::new(db.files().clone()).unwrap());
        assert_eq!(db.history_records(), 300);
        run_concurrently(&db, 2, 50, true);
        let sums = check_consistency(db.files(), &mut psync(4096)).unwrap();
        assert!(sums.consistent() && sums.history_count == 400, "{sums:?}");
    }

    /// Every request an engine was given: kind, file, offset, length.
    type Seen = Arc<StdMutex<Vec<(OpKind, FileId, u64, u32)>>>;

    /// An engine that notes each request before passing it on.
    fn counting(inner: Io, seen: Seen) -> Io {
        inner.intercept(move |req: Req| {
            seen.lock()
                .unwrap()
                .push((req.kind, req.file, req.offset, req.len));
            Ok(req)
        })
    }

    /// A disk that fills during a history append: the system takes 18
    /// bytes of it (what fits), then refuses the rest with ENOSPC.
    fn fills_up(inner: Io, history: FileId) -> Io {
        let mut appends = 0;
        inner.intercept(move |mut req: Req| {
            if req.kind == OpKind::Write && req.file == history {
                appends += 1;
                match appends {
                    1 => req.len = 18,
                    _ => return Err(io::Error::from_raw_os_error(libc::ENOSPC)),
                }
            }
            Ok(req)
        })
    }

    /// Issue 33: a history record written in part as the disk fills is not
    /// "shorter than the database's scale": the rest is written again, and
    /// the system's refusal (ENOSPC) is the error, with the record and file.
    #[test]
    fn a_disk_that_fills_during_an_append_is_named_as_full() {
        let dir = tempfile::tempdir().unwrap();
        let db = make_db(dir.path(), Scale::tiny(2, 100));
        let mut term = Terminal::open(Arc::clone(&db), psync(4096)).unwrap();
        let history = (0..4)
            .map(FileId)
            .find(|&f| term.engine.path(f) == db.files().history)
            .unwrap();
        let inner = std::mem::replace(&mut term.engine, psync(4096));
        term.engine = fills_up(inner, history);
        let txn = txn(1, 0, 0, 5);
        let e = term
            .execute(&mut Tally::default(), &txn, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("No space left on device")
                && e.contains("history record 0")
                && e.contains("history")
                && !e.contains("shorter"),
            "{e}"
        );
    }

    /// Tallies what a transaction records.
    #[derive(Default)]
    struct Tally(Vec<OpKind>);
    impl Recorder for Tally {
        fn op(&mut self, kind: OpKind, _: u64, _: u64, _: u64) {
            self.0.push(kind);
        }
    }

    #[test]
    fn a_transaction_is_three_record_updates_and_one_history_record() {
        let dir = tempfile::tempdir().unwrap();
        let scale = Scale::tiny(2, 100);
        let db = make_db(dir.path(), scale);
        let seen = Arc::new(StdMutex::new(Vec::new()));
        let engine = counting(psync(4096), Arc::clone(&seen));
        let mut term = Terminal::open(Arc::clone(&db), engine).unwrap();
        let id = |p: &Path| {
            (0..4)
                .map(FileId)
                .find(|&f| term.engine.path(f) == p)
                .unwrap()
        };
        let f = db.files();
        let (acc, tel, br, hist) = (
            id(&f.accounts),
            id(&f.tellers),
            id(&f.branches),
            id(&f.history),
        );
        let txn = txn(123, 7, 0, -42);
        for (i, commit_sync) in [(0u64, false), (1, true)] {
            seen.lock().unwrap().clear();
            let mut tally = Tally::default();
            term.execute(&mut tally, &txn, commit_sync).unwrap();
            let mut want = vec![
                (OpKind::Read, br, 0, 100),
                (OpKind::Write, br, 0, 100),
                (OpKind::Read, tel, 700, 100),
                (OpKind::Write, tel, 700, 100),
                (OpKind::Read, acc, 12_300, 100),
                (OpKind::Write, acc, 12_300, 100),
                (OpKind::Write, hist, 50 * i, 50),
            ];
            if commit_sync {
                want.push((OpKind::Fsync, hist, 0, 0));
            }
            assert_eq!(*seen.lock().unwrap(), want);
            use OpKind::*;
            let mut kinds = vec![Lock, Read, Write, Lock, Read, Write, Lock, Read, Write];
            kinds.push(Append);
            if commit_sync {
                kinds.push(Fsync);
            }
            kinds.push(Transaction);
            assert_eq!(tally.0, kinds);
        }
        term.into_engine().unwrap();
        // the records say so on disk: account 123 is of branch 1, twice -42
        let raw = std::fs::read(&f.accounts).unwrap();
        let r = &raw[12_300..12_400];
        assert_eq!((u32_at(r, 0), u32_at(r, 4), i64_at(r, 8)), (123, 1, -84));
        let h = std::fs::read(&f.history).unwrap();
        assert_eq!(h.len(), 100);
        let h = &h[50..];
        assert_eq!((u32_at(h, 0), u32_at(h, 4), u32_at(h, 8)), (123, 7, 0));
        assert_eq!(i64_at(h, 12), -42);
        let sums = check_consistency(f, &mut psync(4096)).unwrap();
        assert!(sums.consistent() && sums.accounts == -84, "{sums:?}");
    }

    #[test]
    fn bad_transactions_engines_and_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let db = make_db(dir.path(), Scale::tiny(2, 100));
        let buffered = Io::test(Choice::BUFFERED, 4096);
        let e = Terminal::open(Arc::clone(&db), buffered).err().unwrap();
        assert!(e.to_string().contains("psync"), "{e}");
        let mut term = Terminal::open(Arc::clone(&db), psync(4096)).unwrap();
        let wrong_branch = txn(0, 15, 0, 1);
        let out_of_range = txn(200, 0, 0, 1);
        for t in [wrong_branch, out_of_range] {
            let e = term.execute(&mut NoRecord, &t, false).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
        // a record file of the wrong size
        let f = db.files();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&f.tellers)
            .unwrap()
            .set_len(999)
            .unwrap();
        let e = check_consistency(f, &mut psync(4096)).unwrap_err();
        assert!(e.to_string().contains("tellers"), "{e}");
    }
}
