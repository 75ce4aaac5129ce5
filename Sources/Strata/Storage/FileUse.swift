#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's use of a file, held as a `flock` on its lock file (`PATH-lock`): shared while an
/// environment of the file is open, exclusive while the file is compacted in place. An in-place
/// compaction takes it exclusively before it looks at the file and keeps it until the copy has
/// replaced the file, so no process opens the file in between (its open waits), where it would
/// otherwise commit to the file about to be replaced and lose those commits.
///
/// `flock` locks belong to the open file description and never interact with the `fcntl` locks LMDB
/// keeps in the same file (Linux: flock(2)), so taking and releasing them leaves LMDB's alone. The
/// descriptor, though, is one of the lock file's: closing it drops every `fcntl` lock the process
/// holds on that file, LMDB's included. It is therefore closed only when no environment of the file
/// is open in the process (`Environment.close()` closes its own after LMDB's).
final class FileUse: Sendable {
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The lock file of `path`, created (as LMDB would create it) when it does not exist yet and `create`.
    private static func openLockFile(of path: String, options: EnvironmentOptions, create: Bool) -> Int32? {
        let lockPath = path + "-lock"
        var fd: Int32 = -1
        if create { fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, options.fileMode) }
        if fd < 0 { fd = open(lockPath, O_RDONLY | O_CLOEXEC) }  // read-only, or a read-only location
        return fd >= 0 ? fd : nil
    }

    private static func lock(_ fd: Int32, _ operation: Int32) -> Bool {
        while flock(fd, operation) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    /// A shared use of the file, waiting while another process compacts it in place. Nil when the
    /// lock file can be neither opened nor created (LMDB then reports why it cannot open the file).
    static func shared(path: String, options: EnvironmentOptions) -> FileUse? {
        guard let fd = openLockFile(of: path, options: options, create: !options.readOnly) else { return nil }
        guard lock(fd, LOCK_SH) else {
            close(fd)
            return nil
        }
        return FileUse(descriptor: fd)
    }

    /// The file to this process alone, or nil when another process has it open (or is opening or
    /// compacting it). Call only while no environment of the file is open in this process: the
    /// descriptor of a failed attempt is closed.
    static func exclusive(path: String, options: EnvironmentOptions) -> FileUse? {
        guard let fd = openLockFile(of: path, options: options, create: true) else { return nil }
        // A shared use can outlive its process's close by a moment: a child being spawned holds a
        // copy of every descriptor until its exec closes it. While LMDB's own lock shows no other
        // process, try again for a while.
        for _ in 0..<40 {
            if lock(fd, LOCK_EX | LOCK_NB) { return FileUse(descriptor: fd) }
            guard !lmdbLockHeldElsewhere(fd) else { break }
            usleep(5_000)
        }
        close(fd)
        return nil
    }

    /// Whether another process holds LMDB's shared lock on the lock file's first byte (it has the
    /// file open). `fcntl` locks are per process: a child being spawned holds none of them.
    static func lmdbLockHeldElsewhere(_ fd: Int32) -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 1
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// Turns an exclusive use into a shared one, letting the processes waiting to open the file in.
    func share() {
        _ = Self.lock(descriptor, LOCK_SH)
    }

    /// Ends the use (its lock with the descriptor). Only once no environment of the file is open in
    /// this process.
    func end() {
        close(descriptor)
    }
}
