"""What bb7's requests cost across every chat and project: the usage log (`log`) and the
provider's remaining credit (`credit`). A chat's own totals live with its messages."""
