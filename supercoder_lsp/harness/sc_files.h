/* Files, emulated: the function under test reads, writes, seeks, opens and closes file descriptors
 * (zlib's gz* functions) through these, not the kernel, while it runs (sc_io_on); outside a call they
 * are the system calls themselves (the harness's own records).
 *
 * Every descriptor the function uses is a file whose contents and length follow from the input's
 * index and the descriptor (so both processes see the same file): empty, a small valid gzip member
 * (whole, cut short, or with bytes after it), plain bytes up to 64 KiB, or one whose reads fail (EIO).
 * What the call does to files is part of its result (sc_io_result): the bytes it writes, in order,
 * with where they go wherever that is not just after the last write to that descriptor (so one
 * write or ten of the same bytes are the same), every open (path and flags), and where each file is
 * left (its position, closed or not). A descriptor it closed is closed (EBADF after); a negative one
 * is EBADF. open() gives 100, 101, ... and fails (ENOENT) for one path in eight. */
#ifndef SC_FILES_H
#define SC_FILES_H
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static const unsigned char sc_gz_member[] = {
    0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xd7,
    0x51, 0xc8, 0x00, 0x51, 0x8a, 0x0a, 0x25, 0x19, 0xa9, 0x0a, 0x85, 0xa5, 0x99, 0xc9, 0xd9, 0x0a,
    0x49, 0x45, 0xf9, 0xe5, 0x79, 0x0a, 0x69, 0xf9, 0x15, 0x0a, 0x59, 0xa5, 0xb9, 0x05, 0xc5, 0x0a,
    0xf9, 0x65, 0xa9, 0x45, 0x60, 0xe9, 0x9c, 0xc4, 0xaa, 0x4a, 0x85, 0x94, 0xfc, 0x74, 0x3d, 0x88,
    0x9e, 0x51, 0xad, 0xa3, 0x5a, 0x47, 0xb5, 0x8e, 0x6a, 0xa5, 0x85, 0x56, 0x06, 0x46, 0x26, 0x66,
    0x16, 0x56, 0x36, 0x76, 0x0e, 0x4e, 0x2e, 0x6e, 0x1e, 0x5e, 0x3e, 0x7e, 0x01, 0x41, 0x21, 0x61,
    0x11, 0x51, 0x31, 0x71, 0x09, 0x49, 0x29, 0x69, 0x19, 0x59, 0x39, 0x79, 0x05, 0x45, 0x25, 0x65,
    0x15, 0x55, 0x35, 0x75, 0x0d, 0x4d, 0x2d, 0x6d, 0x1d, 0x5d, 0x3d, 0x7d, 0x03, 0x43, 0x23, 0x63,
    0x13, 0x53, 0x33, 0x73, 0x0b, 0x4b, 0x2b, 0x6b, 0x1b, 0x5b, 0x3b, 0x7b, 0x07, 0x47, 0x27, 0x67,
    0x17, 0x57, 0x37, 0x77, 0x0f, 0x4f, 0x2f, 0x6f, 0x1f, 0x5f, 0x3f, 0xff, 0x80, 0xc0, 0xa0, 0xe0,
    0x90, 0xd0, 0xb0, 0xf0, 0x88, 0xc8, 0xa8, 0xe8, 0x98, 0xd8, 0xb8, 0xf8, 0x84, 0xc4, 0xa4, 0xe4,
    0x94, 0xd4, 0xb4, 0xf4, 0x8c, 0xcc, 0xac, 0xec, 0x9c, 0xdc, 0xbc, 0xfc, 0x82, 0xc2, 0xa2, 0xe2,
    0x92, 0xd2, 0xb2, 0xf2, 0x8a, 0xca, 0xaa, 0xea, 0x9a, 0xda, 0xba, 0xfa, 0x86, 0xc6, 0xa6, 0xe6,
    0x96, 0xd6, 0xb6, 0xf6, 0x8e, 0xce, 0xae, 0xee, 0x9e, 0xde, 0xbe, 0xfe, 0x09, 0x13, 0x27, 0x4d,
    0x9e, 0x32, 0x75, 0xda, 0xf4, 0x19, 0x33, 0x67, 0xcd, 0x9e, 0x33, 0x77, 0xde, 0xfc, 0x05, 0x0b,
    0x17, 0x2d, 0x5e, 0xb2, 0x74, 0xd9, 0xf2, 0x15, 0x2b, 0x57, 0xad, 0x5e, 0xb3, 0x76, 0xdd, 0xfa,
    0x0d, 0x1b, 0x37, 0x6d, 0xde, 0xb2, 0x75, 0xdb, 0xf6, 0x1d, 0x3b, 0x77, 0xed, 0xde, 0xb3, 0x77,
    0xdf, 0xfe, 0x03, 0x07, 0x0f, 0x1d, 0x3e, 0x72, 0xf4, 0xd8, 0xf1, 0x13, 0x27, 0x4f, 0x9d, 0x3e,
    0x73, 0xf6, 0xdc, 0xf9, 0x0b, 0x17, 0x2f, 0x5d, 0xbe, 0x72, 0xf5, 0xda, 0xf5, 0x1b, 0x37, 0x6f,
    0xdd, 0xbe, 0x73, 0xf7, 0xde, 0xfd, 0x07, 0x0f, 0x1f, 0x3d, 0x7e, 0xf2, 0xf4, 0xd9, 0xf3, 0x17,
    0x2f, 0x5f, 0xbd, 0x7e, 0xf3, 0xf6, 0xdd, 0xfb, 0x0f, 0x1f, 0x3f, 0x7d, 0xfe, 0xf2, 0xf5, 0xdb,
    0xf7, 0x1f, 0x3f, 0x7f, 0xfd, 0xfe, 0xf3, 0xf7, 0xdf, 0x7f, 0x00, 0xc6, 0x6c, 0x0e, 0xde, 0x9c,
    0x05, 0x00, 0x00,
};

#define SC_MAXFD 32
typedef struct { int fd, closed, fails, wrote; uint64_t pos, len, key, wend; int kind; } sc_vfile;
static int sc_io_on;
static uint64_t sc_io_seed, sc_io_hash;
static int sc_io_used, sc_io_next_fd;
static sc_vfile sc_vf[SC_MAXFD];
static unsigned sc_nvf;

static uint64_t sc_rand_taken; /* getrandom's bytes the call took so far */
static void sc_io_begin(uint64_t seed) {
    sc_io_seed = seed; sc_io_hash = 0xcbf29ce484222325ULL; sc_io_used = 0; sc_io_next_fd = 100; sc_nvf = 0;
    sc_rand_taken = 0;
    sc_io_on = 1;
}
static void sc_io_note(uint64_t v) { sc_io_hash ^= v; sc_io_hash *= 0x100000001b3ULL; sc_io_hash ^= sc_io_hash >> 29; sc_io_used = 1; }

static sc_vfile *sc_vfile_of(int fd) {
    if (fd < 0) { errno = EBADF; return NULL; }
    for (unsigned i = 0; i < sc_nvf; i++)
        if (sc_vf[i].fd == fd) {
            if (sc_vf[i].closed) { errno = EBADF; return NULL; }
            return &sc_vf[i];
        }
    if (sc_nvf == SC_MAXFD) { errno = EMFILE; return NULL; }
    sc_vfile *f = &sc_vf[sc_nvf++];
    uint64_t key = sc_mix(sc_io_seed * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(unsigned)fd ^ 0xF11E5ULL);
    f->fd = fd; f->closed = 0; f->wrote = 0; f->pos = 0; f->wend = 0; f->key = key;
    f->kind = (int)(key & 7);
    f->fails = f->kind == 7;
    uint64_t r = key >> 8;
    if (f->kind == 0) f->len = 0;
    else if (f->kind <= 3) /* a gzip member: whole, cut short, or with bytes after it */
        f->len = f->kind == 1 ? sizeof sc_gz_member : f->kind == 2 ? r % sizeof sc_gz_member : sizeof sc_gz_member + r % 64;
    else f->len = (r & 1) ? r % 100 : r % 65536;
    return f;
}
static unsigned char sc_vbyte(const sc_vfile *f, uint64_t i) {
    if (f->kind >= 1 && f->kind <= 3 && i < sizeof sc_gz_member) return sc_gz_member[i];
    return (unsigned char)(sc_mix(f->key ^ (i >> 3)) >> ((i & 7) * 8));
}

ssize_t read(int fd, void *buf, size_t n) {
    if (!sc_io_on) return syscall(SYS_read, fd, buf, n);
    sc_vfile *f = sc_vfile_of(fd);
    if (!f) return -1;
    sc_io_used = 1;
    if (f->fails) { errno = EIO; return -1; }
    size_t k = f->pos >= f->len ? 0 : (size_t)(f->len - f->pos);
    if (k > n) k = n;
    for (size_t i = 0; i < k; i++) ((unsigned char *)buf)[i] = sc_vbyte(f, f->pos + i);
    f->pos += k;
    return (ssize_t)k;
}
ssize_t write(int fd, const void *buf, size_t n) {
    if (!sc_io_on) return syscall(SYS_write, fd, buf, n);
    sc_vfile *f = sc_vfile_of(fd);
    if (!f) return -1;
    if (!f->wrote || f->wend != f->pos) sc_io_note(0x57ULL ^ ((uint64_t)(unsigned)fd << 8) ^ (f->pos << 32));
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) sc_io_note(p[i]);
    f->pos += n;
    f->wrote = 1; f->wend = f->pos;
    if (f->pos > f->len) f->len = f->pos;
    return (ssize_t)n;
}
off_t lseek(int fd, off_t off, int whence) {
    if (!sc_io_on) return syscall(SYS_lseek, fd, off, whence);
    sc_vfile *f = sc_vfile_of(fd);
    if (!f) return -1;
    int64_t at = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)f->pos : whence == SEEK_END ? (int64_t)f->len : -1;
    if (at < 0 || (off < 0 && at + off < 0)) { errno = EINVAL; return -1; }
    f->pos = (uint64_t)(at + off);
    sc_io_used = 1;
    return (off_t)f->pos;
}
off_t lseek64(int fd, off_t off, int whence) { return lseek(fd, off, whence); }
int close(int fd) {
    if (!sc_io_on) return (int)syscall(SYS_close, fd);
    sc_vfile *f = sc_vfile_of(fd);
    if (!f) return -1;
    f->closed = 1;
    sc_io_used = 1;
    return 0;
}
static int sc_vopen(const char *path, int flags) {
    uint64_t h = 0x4FULL ^ ((uint64_t)(unsigned)flags << 8);
    for (size_t i = 0; path && path[i] && i < 4096; i++) { h ^= (unsigned char)path[i]; h *= 0x100000001b3ULL; }
    sc_io_note(h);
    if (!path || (sc_mix(h ^ sc_io_seed) & 7) == 0) { errno = ENOENT; return -1; }
    int fd = sc_io_next_fd++;
    sc_vfile *f = sc_vfile_of(fd);
    if (!f) return -1;
    if (flags & (O_TRUNC | O_CREAT)) { f->len = 0; f->fails = 0; f->kind = 4; }
    if (flags & O_APPEND) f->pos = f->len;
    return fd;
}
/* The call's effect on files: what it wrote and opened (in order), and where it left each file
 * (in any order). */
static uint64_t sc_io_result(void) {
    uint64_t h = sc_io_hash, left = 0;
    for (unsigned i = 0; i < sc_nvf; i++)
        left += sc_mix(((uint64_t)(unsigned)sc_vf[i].fd << 32) ^ (sc_vf[i].pos << 1) ^ (uint64_t)sc_vf[i].closed);
    return sc_mix(h ^ left);
}
/* Random numbers the system gives (getrandom: a hash table's seed, drawn on a first call), emulated as the
 * files are: bytes that follow from the input's index and how many the call took before, the same in both
 * processes, so a function seeded from them is compared as any other (one was refused: "its results depend
 * on random numbers the system gives"). */
static void sc_rand_fill(unsigned char *b, size_t n) {
    for (size_t i = 0; i < n; i++, sc_rand_taken++)
        b[i] = (unsigned char)(sc_mix(sc_io_seed * 0x9E3779B97F4A7C15ULL ^ (sc_rand_taken >> 3) ^ 0x5EEDULL)
                               >> ((sc_rand_taken & 7) * 8));
}
ssize_t getrandom(void *buf, size_t n, unsigned flags) {
    if (!sc_io_on) return syscall(SYS_getrandom, buf, n, flags);
    sc_rand_fill(buf, n);
    return (ssize_t)n;
}
/* The same bytes where the call asks the kernel itself (glibc's arc4random makes the system call within libc):
 * the harness's seccomp filter traps it (SIGSYS), and the handler answers in its place (the return value in
 * RAX). Whether it did: any other system call is still a finding. */
static int sc_emulated_syscall(const siginfo_t *si, void *ctx) {
    if (!sc_io_on || si->si_syscall != SYS_getrandom) return 0;
    greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
    size_t n = (size_t)g[REG_RSI] < (1u << 25) ? (size_t)g[REG_RSI] : (1u << 25);
    sc_rand_fill((unsigned char *)g[REG_RDI], n);
    g[REG_RAX] = (greg_t)n;
    return 1;
}
int open(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0; va_end(ap);
    if (!sc_io_on) return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    return sc_vopen(path, flags);
}
int open64(const char *path, int flags, ...) {
    va_list ap; va_start(ap, flags); int mode = (flags & O_CREAT) ? va_arg(ap, int) : 0; va_end(ap);
    if (!sc_io_on) return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    return sc_vopen(path, flags);
}
#endif
