#if Sync
    import Foundation

    extension StoreSync {
        // MARK: In the background

        /// Synchronizes from now on, in the background: soon after each local commit, when the server
        /// notifies a change (LISTEN/NOTIFY), and every `pollInterval` anyway while the server cannot
        /// notify (every 30 seconds while it can). Failures are retried with
        /// a growing pause, and show in `state.lastError`; the connection state shows offline meanwhile.
        public func start() {
            guard backgroundTask == nil else { return }
            otherProcessesTask = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.otherProcessesCheck)
                    guard let sync = self else { return }
                    await sync.commitSeen()
                }
            }
            backgroundTask = Task { [weak self] in
                var pause = Duration.milliseconds(50)
                while !Task.isCancelled, let sync = self {
                    do {
                        try await sync.synchronize()
                        pause = .milliseconds(50)
                        await sync.waitForWork()
                    } catch {
                        try? await Task.sleep(for: pause)
                        pause = min(pause * 2, max(sync.server.pollInterval, .seconds(2)))
                    }
                }
            }
            listenerTask = Task { [weak self, server] in
                var pause = Duration.milliseconds(50)
                while !Task.isCancelled {
                    do {
                        let listener = try await ServerConnection.connect(server)
                        pause = .milliseconds(50)
                        await self?.setListener(listener)
                        try? await listener.listen(channel: ServerSchema.channel) { [weak self] in
                            await self?.wake()
                        }
                        await self?.setListener(nil)
                        await listener.close()
                    } catch {}
                    guard self != nil else { return }
                    try? await Task.sleep(for: pause)
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }

        /// Stops the background work started by `start()` and closes the connections. Local writes go
        /// on; a later `start()` or `synchronize()` sends what they change.
        public func stop() async {
            let tasks = [backgroundTask, listenerTask, otherProcessesTask].compactMap { $0 }
            backgroundTask = nil
            listenerTask = nil
            otherProcessesTask = nil
            for task in tasks { task.cancel() }
            await listener?.close()  // ends the listening task's wait
            listener = nil
            for task in tasks { await task.value }
            await takeTurn()
            await dropConnection()
            giveTurn()
        }

        func takeTurn() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waitingForTurn.append($0) }
        }

        /// Hands the turn to the next waiting call (which then holds it), or frees it.
        func giveTurn() {
            if waitingForTurn.isEmpty {
                busy = false
            } else {
                waitingForTurn.removeFirst().resume()
            }
        }

        func setListener(_ made: ServerConnection?) {
            listener = made
        }

        /// How long an idle sync waits before asking the server anyway: `pollInterval` while the
        /// server cannot notify (no listening connection), `listeningPollInterval` while it can.
        var idleWait: Duration {
            listener == nil ? server.pollInterval : max(server.pollInterval, Self.listeningPollInterval)
        }

        /// While the server notifies each change (LISTEN/NOTIFY), a poll only covers a lost notification.
        static let listeningPollInterval = Duration.seconds(30)

        func wake() {
            requestWork()
        }

        /// Wakes the background loop if it waits, or makes its next wait return at once.
        func requestWork() {
            wakeRequested = true
            workWaiter?.resume()
            workWaiter = nil
        }

        /// Returns when there may be something to do: a local commit, a notification, or `pollInterval`
        /// (or the task is cancelled). Waits suspended: an idle sync runs nothing until then.
        func waitForWork() async {
            if !wakeRequested {
                let timer = Task { [weak self, idleWait] in
                    try? await Task.sleep(for: idleWait)
                    await self?.requestWork()
                }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                        if wakeRequested || Task.isCancelled {
                            waiter.resume()
                        } else {
                            workWaiter = waiter
                        }
                    }
                } onCancel: {
                    Task { await self.requestWork() }
                }
                timer.cancel()
            }
            wakeRequested = false
        }
    }
#endif
