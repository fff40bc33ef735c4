import CLibevent

/// Work a loop runs on its own thread soon after the libevent callback now running returns
/// (the one way to act on a connection that libevent has not finished setting up).
extension EventLoop {
    /// Runs `action` on this loop's thread soon, outside the libevent callback now running.
    func later(_ action: @escaping () -> Void) {
        laterActions.append(action)
        event_active(wakeEvent, EV_READ, 0)
    }

    func runLaterActions() {
        while !laterActions.isEmpty {
            let actions = laterActions
            laterActions.removeAll()
            for action in actions { action() }
        }
    }
}
