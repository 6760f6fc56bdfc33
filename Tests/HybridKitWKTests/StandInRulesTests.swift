#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit
import Testing
@testable import WebKitStandIn

/// The stand-in ends the process where WebKit raises an Objective-C exception or asserts the main thread.
@Suite struct StandInRulesTests {
    @Test @MainActor func theOrderWebKitAcceptsReachesTheEngine() async throws {
        let port = RecordingPortTask()
        let task = makeStandInTask(port)
        task.didReceive(okResponse())
        task.didReceive(okResponse())  // WebKit lets a response be replaced until data flows
        task.didReceive(Data("hi".utf8))
        task.didFinish()
        #expect(try await waitUntil { port.calls == ["respond 200", "send 2", "finish"] })
    }

    /// Answers a navigation's decision handler `times` times (WebKit wants exactly once).
    final class Deciding: NSObject, WKNavigationDelegate {
        let times: Int
        init(times: Int) { self.times = times }
        func webView(
            _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
            decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void
        ) {
            for _ in 0..<times { decisionHandler(.allow) }
        }
    }

    /// Asks a navigation's decision from a delegate that answers `times` times.
    @MainActor static func decide(answering times: Int) {
        let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
        let delegate = Deciding(times: times)
        view.navigationDelegate = delegate
        let url = URL(string: "https://a.example/") ?? URL(fileURLWithPath: "/")
        view.decide(NavigationAction(request: EngineRequest(url: url))) { _ in }
        withExtendedLifetime(delegate) {}
    }

    /// WebKit raises when a navigation's decision handler is freed without a call, or called twice; the stand-in
    /// does too, so an adapter path that forgot one (or answered twice) ends the test as it would end the app.
    @Test func aDecisionHandlerNeverCalledTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { StandInRulesTests.decide(answering: 0) }
        }
        #expect(standardError(result).contains("decidePolicyForNavigationAction:decisionHandler:] was not called"))
    }

    @Test func aDecisionHandlerCalledTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { StandInRulesTests.decide(answering: 2) }
        }
        #expect(
            standardError(result).contains(
                "decidePolicyForNavigationAction:decisionHandler:] was called more than once"))
    }

    /// Answering once is what WebKit wants: nothing raises.
    @Test @MainActor func aDecisionHandlerCalledOnceIsFine() {
        Self.decide(answering: 1)
    }

    @Test func dataBeforeAResponseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { makeStandInTask().didReceive(Data("x".utf8)) }
        }
        #expect(standardError(result).contains("No response has been sent for this task"))
    }

    @Test func finishWithoutAResponseTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run { makeStandInTask().didFinish() }
        }
        #expect(standardError(result).contains("No response has been sent for this task"))
    }

    @Test func aResponseAfterDataTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let task = makeStandInTask()
                task.didReceive(okResponse())
                task.didReceive(Data("x".utf8))
                task.didReceive(okResponse())
            }
        }
        #expect(
            standardError(result).contains(
                "[WKURLSchemeTask taskDidReceiveData:] has already been called for this task"))
    }

    @Test func anyCallAfterStopTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let task = makeStandInTask()
                task.markStopped()
                task.didFailWithError(URLError(.cancelled))
            }
        }
        #expect(standardError(result).contains("This task has already been stopped"))
    }

    @Test func anyCallAfterFinishTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let task = makeStandInTask()
                task.didReceive(okResponse())
                task.didFinish()
                task.didFinish()
            }
        }
        #expect(
            standardError(result).contains(
                "[WKURLSchemeTask taskDidCompleteWithError:] has already been called for this task"))
    }

    @Test @MainActor func registeringASchemeWebKitHandlesTraps() async {
        for scheme in ["http", "https", "file"] {
            #expect(WKWebView.handlesURLScheme(scheme))
        }
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                WKWebViewConfiguration().setURLSchemeHandler(NoHandler(), forURLScheme: "https")
            }
        }
        #expect(standardError(result).contains("'https' is a URL scheme that WKWebView handles natively"))
    }

    @Test func registeringASchemeTwiceTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let configuration = WKWebViewConfiguration()
                configuration.setURLSchemeHandler(NoHandler(), forURLScheme: "app")
                configuration.setURLSchemeHandler(NoHandler(), forURLScheme: "app")
            }
        }
        #expect(standardError(result).contains("URL scheme 'app' already has a registered URL scheme handler"))
    }

    @Test func aSecondMessageHandlerUnderOneNameTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await MainActor.run {
                let controller = WKUserContentController()
                controller.add(NoHandler(), name: "hybrid")
                controller.add(NoHandler(), name: "hybrid")
            }
        }
        #expect(
            standardError(result).contains(
                "Attempt to add script message handler with name 'hybrid' when one already exists."))
    }

    @Test func mainActorAPIOffTheMainThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            callOffMain {
                let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
                view.evaluateJavaScript("1")
            }
        }
        #expect(standardError(result).contains("must be called on the main thread"))
    }

    @Test @MainActor func opaqueOriginsHaveAnEmptyProtocol() {
        let opaque = WKSecurityOrigin(serialized: "null")
        #expect(opaque.protocol == "" && opaque.host == "" && opaque.port == 0)
        let origin = WKSecurityOrigin(serialized: "http://127.0.0.1:8080")
        #expect(origin.protocol == "http" && origin.host == "127.0.0.1" && origin.port == 8080)
    }
}

func standardError(_ result: ExitTest.Result?) -> String {
    result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
}

final class NoHandler: NSObject, WKURLSchemeHandler, WKScriptMessageHandler {
    func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {}
    func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {}
    func userContentController(
        _ userContentController: WKUserContentController, didReceive message: WKScriptMessage
    ) {}
}
#endif
