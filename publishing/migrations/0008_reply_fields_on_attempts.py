# A reply's ref, answer and start are its attempts' now.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('publishing', '0007_reply_evidence'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='threaditem',
            name='ref',
        ),
        migrations.RemoveField(
            model_name='threaditem',
            name='response',
        ),
        migrations.RemoveField(
            model_name='threaditem',
            name='started_at',
        ),
    ]
