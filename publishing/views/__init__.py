"""Dashboard pages of publishing, one module per page: `lists` (publishes, approvals),
`compose`, `calendar` and `detail` (one publish and its actions)."""
