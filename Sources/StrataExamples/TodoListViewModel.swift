import Foundation
import Strata
import StrataReactive

// A view model whose every state change happens on a scheduler it is given: QueueScheduler.main in
// the app, a TestScheduler in tests, where time is virtual (Docs/Guides/TestingWithTestScheduler.md).

public final class TodoListViewModel {
    /// How long a sync failure stays on screen.
    public static let bannerDuration: TimeInterval = 3

    public private(set) var titles: [String] = []
    public private(set) var banner: String?
    private let repository: TodoRepository
    private let scheduler: DateScheduler
    private let observation = SerialDisposable()
    private let bannerTimer = SerialDisposable()

    public init(repository: TodoRepository, scheduler: DateScheduler) {
        self.repository = repository
        self.scheduler = scheduler
    }

    deinit {
        observation.dispose()
        bannerTimer.dispose()
    }

    public func start() {
        observation.inner = repository.observe().observe(on: scheduler).startWithResult { [weak self] result in
            switch result {
            case .success(.todos(.initial(let todos))), .success(.todos(.update(let todos, _, _, _))):
                self?.titles = todos.map(\.title)
            case .success(.syncFailed(let error)):
                self?.show("Sync failed: \(error)")
            case .success(.todos(.error(let error))), .failure(let error):
                self?.show("The list cannot be shown: \(error)")
            }
        }
    }

    public func refresh() {
        repository.requestSync()
    }

    private func show(_ message: String) {
        banner = message
        bannerTimer.inner = SignalProducer<Void, Never>(value: ()).delay(Self.bannerDuration, on: scheduler)
            .startWithValues { [weak self] in self?.banner = nil }
    }
}
