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

        @Test func dataBeforeAResponseTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run { makeStandInTask().didReceive(Data("x".utf8)) }
            }
        }

        @Test func finishWithoutAResponseTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run { makeStandInTask().didFinish() }
            }
        }

        @Test func aResponseAfterDataTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    let task = makeStandInTask()
                    task.didReceive(okResponse())
                    task.didReceive(Data("x".utf8))
                    task.didReceive(okResponse())
                }
            }
        }

        @Test func anyCallAfterStopTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    let task = makeStandInTask()
                    task.markStopped()
                    task.didFailWithError(URLError(.cancelled))
                }
            }
        }

        @Test func anyCallAfterFinishTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    let task = makeStandInTask()
                    task.didReceive(okResponse())
                    task.didFinish()
                    task.didFinish()
                }
            }
        }

        @Test @MainActor func registeringASchemeWebKitHandlesTraps() async {
            for scheme in ["http", "https", "file"] {
                #expect(WKWebView.handlesURLScheme(scheme))
            }
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    WKWebViewConfiguration().setURLSchemeHandler(NoHandler(), forURLScheme: "https")
                }
            }
        }

        @Test func registeringASchemeTwiceTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    let configuration = WKWebViewConfiguration()
                    configuration.setURLSchemeHandler(NoHandler(), forURLScheme: "app")
                    configuration.setURLSchemeHandler(NoHandler(), forURLScheme: "app")
                }
            }
        }

        @Test func aSecondMessageHandlerUnderOneNameTraps() async {
            await #expect(processExitsWith: .failure) {
                await MainActor.run {
                    let controller = WKUserContentController()
                    controller.add(NoHandler(), name: "hybrid")
                    controller.add(NoHandler(), name: "hybrid")
                }
            }
        }

        @Test func mainActorAPIOffTheMainThreadTraps() async {
            await #expect(processExitsWith: .failure) {
                callOffMain {
                    let view = WKWebView(frame: .zero, configuration: WKWebViewConfiguration())
                    view.evaluateJavaScript("1")
                }
            }
        }

        @Test @MainActor func opaqueOriginsHaveAnEmptyProtocol() {
            let opaque = WKSecurityOrigin(serialized: "null")
            #expect(opaque.protocol == "" && opaque.host == "" && opaque.port == 0)
            let origin = WKSecurityOrigin(serialized: "http://127.0.0.1:8080")
            #expect(origin.protocol == "http" && origin.host == "127.0.0.1" && origin.port == 8080)
        }
    }

    final class NoHandler: NSObject, WKURLSchemeHandler, WKScriptMessageHandler {
        func webView(_ webView: WKWebView, start urlSchemeTask: any WKURLSchemeTask) {}
        func webView(_ webView: WKWebView, stop urlSchemeTask: any WKURLSchemeTask) {}
        func userContentController(
            _ userContentController: WKUserContentController, didReceive message: WKScriptMessage
        ) {}
    }
#endif
