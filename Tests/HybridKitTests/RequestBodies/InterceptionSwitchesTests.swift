import Foundation
import Synchronization
import Testing

@testable import HybridKit

@Suite struct InterceptionSwitchesTests {
    final class Heard: Sendable {
        let settings = Mutex<[InterceptionSwitches.Settings]>([])
    }

    @Test func overridesLayOverTheHostsSettingsAndGoAwayWhenCleared() {
        let switches = InterceptionSwitches()
        switches.update { $0.disabledAPIs = [.form] }
        var overrides = InterceptionSwitches.Overrides()
        overrides.apis = [.fetch: false, .form: true]
        overrides.proxyEnabled = false
        overrides.degradedPages = ["hybrid://a.test/old/"]
        switches.setOverrides(overrides)
        #expect(!switches.isEnabled(.fetch))
        #expect(switches.isEnabled(.form), "the configuration may turn on what the host turned off")
        #expect(switches.isEnabled(.xhr))
        #expect(!switches.proxyEnabled)
        #expect(switches.hooksEnabled)
        #expect(switches.effective.degradedPages == ["hybrid://a.test/old/"])
        // The host's own settings are untouched, and come back when the configuration stops saying anything.
        #expect(switches.settings.disabledAPIs == [.form])
        switches.setOverrides(InterceptionSwitches.Overrides())
        #expect(switches.isEnabled(.fetch))
        #expect(!switches.isEnabled(.form))
        #expect(switches.proxyEnabled)
    }

    @Test func observersHearEffectiveChangesOnlyUntilCancelled() {
        let switches = InterceptionSwitches()
        let heard = Heard()
        let observation = switches.observe { settings in heard.settings.withLock { $0.append(settings) } }
        switches.hooksEnabled = true  // no change: nothing heard
        switches.update { $0.disabledAPIs = [.xhr] }
        var overrides = InterceptionSwitches.Overrides()
        overrides.hooksEnabled = false
        switches.setOverrides(overrides)
        observation.cancel()
        switches.proxyEnabled = false
        let seen = heard.settings.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.first?.disabledAPIs == [.xhr])
        #expect(seen.last?.hooksEnabled == false)
    }

    @Test func thePagesSwitchesAreOneSafeExpression() throws {
        var overrides = InterceptionSwitches.Overrides()
        overrides.apis = [.sendBeacon: false]
        overrides.degradedPages = ["https://a.test/</script>\u{2028}"]
        let switches = InterceptionSwitches()
        switches.setOverrides(overrides)
        let json = RequestHooksScript.switchesJSON(switches.effective)
        #expect(!json.contains("</script>"))
        #expect(!json.contains("\u{2028}"))
        let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let apis = decoded?["apis"] as? [String: Bool]
        #expect(apis == ["xhr": true, "fetch": true, "sendBeacon": false, "form": true])
        #expect(decoded?["enabled"] as? Bool == true)
        #expect((decoded?["degraded"] as? [String])?.first == "https://a.test/</script>\u{2028}")
    }
}
