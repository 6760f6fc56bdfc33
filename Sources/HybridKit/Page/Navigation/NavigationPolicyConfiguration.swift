import Foundation

/// The rules of a ``NavigationPolicyController``.
public struct NavigationPolicyConfiguration: Sendable {
    public var schemes: SchemePolicy
    /// Decides where each `target=_blank` / `window.open` goes.
    public var newWindow: @Sendable (NewWindowRequest) -> NewWindowChoice
    public var dialogDefaults: ScriptDialogDefaults
    /// How long a dialog waits for the host before the page gets the default answer.
    public var dialogTimeout: Duration
    /// Cancelled sub-resource loads (navigation away, `stop`) are normal; report them only when asked.
    public var reportsCancelledLoads: Bool

    public init(
        schemes: SchemePolicy = SchemePolicy(),
        newWindow: @escaping @Sendable (NewWindowRequest) -> NewWindowChoice = { _ in .sameView },
        dialogDefaults: ScriptDialogDefaults = ScriptDialogDefaults(), dialogTimeout: Duration = .seconds(60),
        reportsCancelledLoads: Bool = false
    ) {
        self.schemes = schemes
        self.newWindow = newWindow
        self.dialogDefaults = dialogDefaults
        self.dialogTimeout = dialogTimeout
        self.reportsCancelledLoads = reportsCancelledLoads
    }

    /// The same choice for every new-window request.
    public static func always(_ choice: NewWindowChoice) -> @Sendable (NewWindowRequest) -> NewWindowChoice {
        { _ in choice }
    }
}
