# The evidence of replies sent before they had attempt rows, and the jobs of waiting threads.

from django.db import migrations
from django.utils import timezone

_ATTEMPT_STATE = {"sending": "sending", "unknown": "unknown", "published": "published", "failed": "failed"}


def carry_over(apps, schema_editor):
    """Replies sent before they had attempt rows keep their evidence (ref, answer, start) as
    one; the next reply of each published target whose thread waits gets its outbox job, which
    the relay sends (the sweep that handed threads over is gone)."""
    ThreadItem = apps.get_model("publishing", "ThreadItem")
    DeliveryAttempt = apps.get_model("publishing", "DeliveryAttempt")
    DeliveryJob = apps.get_model("publishing", "DeliveryJob")
    now = timezone.now()
    for item in ThreadItem.objects.filter(attempts__gt=0).exclude(state="pending").iterator():
        DeliveryAttempt.objects.create(
            target_id=item.target_id,
            item_id=item.pk,
            number=item.attempts,
            state=_ATTEMPT_STATE[item.state],
            tries=1,
            ref=item.ref,
            response=item.response,
            error_code=item.error_code,
            error_message=item.error_message,
            started_at=item.started_at,
            finished_at=None if item.state == "sending" else item.updated_at,
        )
    first_open: dict = {}
    for item in ThreadItem.objects.filter(target__state="published").exclude(state="published").order_by("position"):
        first_open.setdefault(item.target_id, item)
    for item in first_open.values():
        if item.state != "pending":
            continue
        number = item.attempts + 1
        ThreadItem.objects.filter(pk=item.pk).update(attempts=number, next_check_at=None)
        DeliveryJob.objects.create(
            target_id=item.target_id,
            item_id=item.pk,
            number=number,
            dispatch_id=f"reply:{item.pk}:{number}",
            not_before=now,
        )


def drop_reply_units(apps, schema_editor):
    """Backwards: replies' jobs and attempts go (their numbers would clash with their targets'
    once the item column is gone)."""
    for name in ("DeliveryAttempt", "DeliveryJob"):
        apps.get_model("publishing", name).objects.filter(item__isnull=False).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('publishing', '0006_reply_units'),
    ]

    operations = [
        migrations.RunPython(carry_over, drop_reply_units),
    ]
