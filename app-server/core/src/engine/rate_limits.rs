//! `account/rateLimits/updated` after a model response whose headers carried rate limits.

use app_server_protocol::account::AccountRateLimitsUpdatedNotification;
use app_server_protocol::tables::ServerNotification;

use crate::engine::turn::TurnTask;

impl TurnTask {
    /// Announces the account's latest rate limits, if a provider ever reported any (the
    /// reference sends them after every model response).
    pub(super) async fn emit_rate_limits(&self) {
        if let Some(rate_limits) = self.engine.account.rate_limits() {
            self.engine
                .sink
                .emit(ServerNotification::AccountRateLimitsUpdated(
                    AccountRateLimitsUpdatedNotification { rate_limits },
                ))
                .await;
        }
    }
}
