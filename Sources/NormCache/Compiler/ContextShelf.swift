import Synchronization

/// The call contexts a prepared operation keeps between calls.
///
/// A call's context compiles the shape of each kind of object the call meets
/// (`ShapeMemo`). Within one call a list's elements share one shape, but every object
/// reached through a single field has its own. In an app's query (`viewer { repository
/// { owner { … } } }`) compiling those shapes was most of a small read's cost, paid
/// again on every call. A call gives its context back here when it ends, and the next
/// call with the same variables and max-age rules takes it with every shape made.
///
/// Two slots, taken and given back with atomic exchanges. A call owns the context it
/// took, so no two calls ever share one (a shape counts what its calls did), and
/// fork() finds no lock held. A call that finds no matching context makes one.
final class ContextShelf: Sendable {
    /// The slots: a retained context's address, 0 when empty.
    private let first = Atomic<UInt>(0)
    private let second = Atomic<UInt>(0)

    deinit {
        Self.empty(first)
        Self.empty(second)
    }

    /// Takes a context made for `variables` (the call's JSON bytes) and `maxAgeRules`,
    /// or nil when none is on the shelf. A context made for others stays.
    func take(variables: UnsafeRawBufferPointer, maxAgeRules: MaxAgeRules) -> SelectionContext? {
        if let context = Self.take(from: first, variables: variables, maxAgeRules: maxAgeRules) { return context }
        return Self.take(from: second, variables: variables, maxAgeRules: maxAgeRules)
    }

    /// Gives a context back after its call. When both slots are full it replaces the
    /// first: the latest call's variables are the likeliest next.
    func giveBack(_ context: SelectionContext) {
        let given = UInt(bitPattern: Unmanaged.passRetained(context).toOpaque())
        if first.compareExchange(expected: 0, desired: given, ordering: .acquiringAndReleasing).exchanged { return }
        if second.compareExchange(expected: 0, desired: given, ordering: .acquiringAndReleasing).exchanged { return }
        let replaced = first.exchange(given, ordering: .acquiringAndReleasing)
        if replaced != 0 { Self.unmanaged(replaced).release() }
    }

    private static func take(from slot: borrowing Atomic<UInt>, variables: UnsafeRawBufferPointer,
                             maxAgeRules: MaxAgeRules) -> SelectionContext? {
        let taken = slot.exchange(0, ordering: .acquiringAndReleasing)
        guard taken != 0 else { return nil }
        let context = unmanaged(taken).takeRetainedValue()
        if KeyBytes.equal(context.variablesJSON.bytes, variables), context.maxAgeRules == maxAgeRules { return context }
        // Not this call's: back in its slot, unless another call filled it meanwhile.
        let kept = UInt(bitPattern: Unmanaged.passRetained(context).toOpaque())
        if !slot.compareExchange(expected: 0, desired: kept, ordering: .acquiringAndReleasing).exchanged {
            unmanaged(kept).release()
        }
        return nil
    }

    private static func empty(_ slot: borrowing Atomic<UInt>) {
        let held = slot.exchange(0, ordering: .acquiringAndReleasing)
        if held != 0 { unmanaged(held).release() }
    }

    private static func unmanaged(_ slot: UInt) -> Unmanaged<SelectionContext> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: slot).assumedPresent)
    }
}
