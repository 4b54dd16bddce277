/**
 * A seccomp filter for sandboxed tools, assembled here as classic BPF (bubblewrap loads it with
 * `--seccomp FD`). It refuses, with EPERM, the system calls a tool never needs and a sandboxed
 * process could still reach without capabilities: the kernel keyrings (`keyctl`, `add_key`,
 * `request_key` — a root worker's keys are its own), and the surface container runtimes close too
 * (mounts and the new mount API, kernel modules, kexec, `bpf`, `perf_event_open`, `userfaultfd`,
 * file handles, clock and swap control, `reboot`, `acct`, `syslog`, `quotactl`, raw I/O ports), the
 * terminal-injection ioctls TIOCSTI and TIOCLINUX, and tracing the namespace's pid 1 — bubblewrap's
 * reaper, whose parent-death signal is what kills every process when the call ends (strace and gdb
 * on the command's own processes still work), and the calls that would leave something privileged
 * behind on the host (below). Everything else is allowed: this narrows what the namespaces and the
 * sandbox user already hold; it is not the boundary itself.
 *
 * Written by hand (a few dozen instructions) rather than with libseccomp, which has no maintained
 * Node binding that installs without a compiler.
 */

type Arch = 'x64' | 'arm64';

const AUDIT_ARCH: Record<Arch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };
const X32_SYSCALL_BIT = 0x40000000;

/** The new mount API: calls added after the architectures' tables were unified share one number everywhere. */
const NEW_MOUNT_API: Record<string, number> = {
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

/** Refused outright (x86_64 numbers; arm64 follows the generic table). */
const REFUSED: Record<Arch, Record<string, number>> = {
  x64: {
    syslog: 103,
    acct: 163,
    settimeofday: 164,
    mount: 165,
    umount2: 166,
    swapon: 167,
    swapoff: 168,
    reboot: 169,
    iopl: 172,
    ioperm: 173,
    init_module: 175,
    delete_module: 176,
    quotactl: 179,
    pivot_root: 155,
    adjtimex: 159,
    lookup_dcookie: 212,
    clock_settime: 227,
    kexec_load: 246,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    perf_event_open: 298,
    name_to_handle_at: 303,
    open_by_handle_at: 304,
    clock_adjtime: 305,
    finit_module: 313,
    kexec_file_load: 320,
    bpf: 321,
    userfaultfd: 323,
    ...NEW_MOUNT_API,
  },
  arm64: {
    lookup_dcookie: 18,
    umount2: 39,
    mount: 40,
    pivot_root: 41,
    quotactl: 60,
    acct: 89,
    kexec_load: 104,
    init_module: 105,
    delete_module: 106,
    clock_settime: 112,
    syslog: 116,
    reboot: 142,
    settimeofday: 170,
    adjtimex: 171,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    swapon: 224,
    swapoff: 225,
    perf_event_open: 241,
    name_to_handle_at: 264,
    open_by_handle_at: 265,
    clock_adjtime: 266,
    finit_module: 273,
    bpf: 280,
    userfaultfd: 282,
    kexec_file_load: 294,
    ...NEW_MOUNT_API,
  },
};

/**
 * Refused when an argument passes a test: [syscall, argument index, test]. `eq` refuses the listed
 * values; `bits` refuses any value with one of the mask's bits set.
 *
 * Nothing a sandboxed process writes may later grant privileges on the host, so the filter refuses
 * a mode with the setuid or setgid bit (`chmod`, `fchmod`, `fchmodat`, `fchmodat2`, and the create
 * calls that take a mode: `open`, `openat`, `creat`, `mknod`, `mknodat`) and an owner or group of 0
 * (`chown`, `fchown`, `lchown`, `fchownat`). A new user namespace is refused too (`unshare` or
 * `clone` with CLONE_NEWUSER): where tools run as the sandbox user without one of their own, root in
 * a fresh namespace would reopen the kernel surface the namespaces close.
 */
type Test = { eq: number[] } | { bits: number };
const SET_ID_BITS = 0o6000;
const ROOT: Test = { eq: [0] };
const SET_ID: Test = { bits: SET_ID_BITS };
const CLONE_NEWUSER = 0x10000000;
const NEWUSER: Test = { bits: CLONE_NEWUSER };

const REFUSED_WHEN: Record<Arch, Array<[nr: number, arg: number, test: Test]>> = {
  x64: [
    [16, 1, { eq: [0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */] }], // ioctl(fd, request)
    [101, 1, { eq: [1] }], // ptrace(request, pid 1)
    [310, 0, { eq: [1] }], // process_vm_readv(pid 1)
    [311, 0, { eq: [1] }], // process_vm_writev(pid 1)
    [90, 1, SET_ID], // chmod(path, mode)
    [91, 1, SET_ID], // fchmod(fd, mode)
    [268, 2, SET_ID], // fchmodat(dirfd, path, mode)
    [452, 2, SET_ID], // fchmodat2(dirfd, path, mode, flags)
    [2, 2, SET_ID], // open(path, flags, mode)
    [257, 3, SET_ID], // openat(dirfd, path, flags, mode)
    [85, 1, SET_ID], // creat(path, mode)
    [133, 1, SET_ID], // mknod(path, mode, dev)
    [259, 2, SET_ID], // mknodat(dirfd, path, mode, dev)
    [92, 1, ROOT], // chown(path, uid, gid)
    [92, 2, ROOT],
    [93, 1, ROOT], // fchown(fd, uid, gid)
    [93, 2, ROOT],
    [94, 1, ROOT], // lchown(path, uid, gid)
    [94, 2, ROOT],
    [260, 2, ROOT], // fchownat(dirfd, path, uid, gid, flags)
    [260, 3, ROOT],
    [272, 0, NEWUSER], // unshare(flags)
    [56, 0, NEWUSER], // clone(flags, …)
  ],
  arm64: [
    [29, 1, { eq: [0x5412, 0x541c] }],
    [117, 1, { eq: [1] }],
    [270, 0, { eq: [1] }],
    [271, 0, { eq: [1] }],
    [52, 1, SET_ID], // fchmod
    [53, 2, SET_ID], // fchmodat
    [452, 2, SET_ID], // fchmodat2
    [56, 3, SET_ID], // openat
    [33, 2, SET_ID], // mknodat
    [55, 1, ROOT], // fchown
    [55, 2, ROOT],
    [54, 2, ROOT], // fchownat
    [54, 3, ROOT],
    [97, 0, NEWUSER], // unshare
    [220, 0, NEWUSER], // clone
  ],
};

/**
 * Answered "not implemented" (ENOSYS): calls whose arguments sit behind a pointer the filter cannot
 * read. `clone3` (flags in a struct: a new user namespace) and `openat2` (mode in a struct): libc
 * falls back to `clone` and `openat`, which the rules above see.
 */
const NOT_IMPLEMENTED: Record<Arch, number[]> = { x64: [435, 437], arm64: [435, 437] };

// Classic BPF.
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
// struct seccomp_data: int nr; u32 arch; u64 ip; u64 args[6] — the low word of args[i] is at 16 + 8i.
const OFF_NR = 0;
const OFF_ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;

/** An instruction whose jump targets are labels, resolved to relative offsets at the end. */
interface Op {
  code: number;
  k: number;
  jt?: string;
  jf?: string;
  label?: string;
}

function assemble(ops: Op[]): Buffer {
  const at = new Map<string, number>();
  ops.forEach((op, i) => op.label && at.set(op.label, i));
  const rel = (i: number, target: string | undefined) => {
    if (target === undefined) return 0;
    const t = at.get(target);
    if (t === undefined || t <= i || t - i - 1 > 255) throw new Error(`seccomp: bad jump to ${target}`);
    return t - i - 1;
  };
  const buf = Buffer.alloc(ops.length * 8);
  ops.forEach((op, i) => {
    buf.writeUInt16LE(op.code, i * 8);
    buf.writeUInt8(rel(i, op.jt), i * 8 + 2);
    buf.writeUInt8(rel(i, op.jf), i * 8 + 3);
    buf.writeUInt32LE(op.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** The filter for this machine's architecture, or undefined where there is none. */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  const ops: Op[] = [
    { code: LD_W_ABS, k: OFF_ARCH },
    // A foreign architecture's calls (32-bit compat) would bypass the table: refuse them all.
    { code: JEQ_K, k: AUDIT_ARCH[arch], jf: 'deny' },
    { code: LD_W_ABS, k: OFF_NR },
  ];
  if (arch === 'x64') ops.push({ code: JGE_K, k: X32_SYSCALL_BIT, jt: 'deny' });
  for (const nr of Object.values(REFUSED[arch])) ops.push({ code: JEQ_K, k: nr, jt: 'deny' });
  for (const nr of NOT_IMPLEMENTED[arch]) ops.push({ code: JEQ_K, k: nr, jt: 'nosys' });
  // One check block per system call with argument rules; the block tests each rule in turn.
  const rules = new Map<number, Array<[number, Test]>>();
  for (const [nr, arg, test] of REFUSED_WHEN[arch]) rules.set(nr, [...(rules.get(nr) ?? []), [arg, test]]);
  const calls = [...rules.keys()];
  calls.forEach((nr, i) => ops.push({ code: JEQ_K, k: nr, jt: `when${i}` }));
  ops.push({ code: RET_K, k: SECCOMP_RET_ALLOW, label: 'allow' });
  calls.forEach((nr, i) => {
    rules.get(nr)!.forEach(([arg, test], j) => {
      ops.push({ code: LD_W_ABS, k: argLow(arg), ...(j === 0 ? { label: `when${i}` } : {}) });
      if ('eq' in test) for (const v of test.eq) ops.push({ code: JEQ_K, k: v, jt: 'deny' });
      else ops.push({ code: JSET_K, k: test.bits, jt: 'deny' });
    });
    ops.push({ code: RET_K, k: SECCOMP_RET_ALLOW });
  });
  ops.push({ code: RET_K, k: SECCOMP_RET_ERRNO | ENOSYS, label: 'nosys' });
  ops.push({ code: RET_K, k: SECCOMP_RET_ERRNO | EPERM, label: 'deny' });
  return assemble(ops);
}
