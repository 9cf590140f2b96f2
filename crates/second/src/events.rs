//! Events fired by every area, matched to webhook subscriptions and delivered. OWNER: webhooks.
