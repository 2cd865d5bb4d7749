"""The few words the tooling itself puts on a page, in every language of the guide."""

from __future__ import annotations

from tcguide.core.languages import SOURCE

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "nb_view": "Notebook", "nb_download": "Download notebook", "nb_colab": "Open in Colab",
        "nb_snippet": "Snippet file {file} in the repository",
        "nb_title": "Notebook: {title}",
        "nb_provenance": "Captured for the guide: {line}",
        "nb_needs": "What this notebook needs",
        "nb_needs_gpu": "A CUDA GPU: the outputs shown were captured on {gpu}. In Colab, pick one under "
                        "*Runtime → Change runtime type*; Colab opens this notebook with the GPU type {colab} chosen.",
        "nb_needs_torch": "torch {torch} with CUDA {cuda}, the version the outputs were captured with; another "
                          "version may print other messages and other times.",
        "nb_needs_packages": "The packages its code imports: {packages}. The next cell installs those missing here, "
                             "in the versions the outputs were captured with, and does nothing where all are installed.",
        "nb_intro": "This notebook is the chapter “{title}” of the torch.compile guide ({url}), made from the page and "
                    "its snippet files. The outputs under the cells are the ones captured for the guide ({where}); "
                    "run the notebook to get your own. Collapsed cells tagged `setup` are parts of the snippet files "
                    "that the page does not show but that the cells after them need.",
        "nb_multi_gpu": "The cells of `{file}` need {gpus} GPUs and run as one process per GPU "
                        "(`torchrun --nproc-per-node={gpus} {file}`). They are shown with the output captured for the "
                        "guide, and running this notebook skips them (tag `skip-execution`).",
        "nb_keep_names": "{file} goes on later in this notebook: keep its names, as its own process would",
        "nb_restore_names": "back to {file}: its names as its own cells left them",
        "t_file": "Snippet file", "t_cells": "Cells", "t_time": "Wall time", "t_where": "Captured on", "t_date": "Date",
        "untranslated": "This page has not been translated yet; you are reading the English original.",
        "untranslated_part": "Part of this page is not translated yet and is still in English.",
        "outdated": "This translation follows an earlier version of the English page. Changed since: {changes}.",
        "status_page": "Page", "up to date": "up to date", "outdated_state": "outdated", "missing": "missing", "untranslated_state": "not translated",
        "language_name": "English",
        "ms": "{n} ms", "s": "{n} s", "min_s": "{m} min {s} s", "permalink": "Permanent link", "list_sep": ", ", "read_english": "Read the English page.",
        "provenance": "Where and when this output was captured: GPU · torch · CUDA · date and time (UTC) · the cell's wall time · whether other snippet files ran on the machine meanwhile",
        "alone": "ran alone", "beside": "ran beside {n} other files", "threads": "{n} Inductor compile threads", "claim": "A claim checked against the captured values: {holds}, with {values}", "claim_false": "This claim no longer holds for the captured values: {holds} is false with {values}", "host_cpu": "host CPU: {cpu}", "not_found": "Page not found", "not_found_home": "Go to the guide's home page", "copied": "Copied!", "copy": "Copy to clipboard", "english_original": "This page is a translation; the English original:", "english_link": "read it in English",
        "fold_earlier": "Show {n} earlier lines of {total}",
        "figure": "Chart drawn by cell {cell} of {file}",
        "raises_expected": "Raises {ename}, as this example intends",
        "raises_unexpected": "Unexpected {ename}",
        "no_output": "(this cell prints nothing)",
        "problem": "Output problem:",
        "decimal_sep": ".", "group_sep": ",",
        "glued": "Measured: value from cell {cell} of {file} · {where}",
        "quoted": "Quoted, not measured here: {source}",
    },
    "ru": {
        "nb_view": "Блокнот", "nb_download": "Скачать блокнот", "nb_colab": "Открыть в Colab",
        "nb_snippet": "Файл {file} в репозитории",
        "nb_title": "Блокнот: {title}",
        "nb_provenance": "Получено для руководства: {line}",
        "nb_needs": "Что нужно этому блокноту",
        "nb_needs_gpu": "GPU с CUDA: показанные выводы получены на {gpu}. В Colab выберите GPU в меню "
                        "«Среда выполнения → Сменить среду выполнения»; Colab открывает этот блокнот с уже "
                        "выбранным типом GPU {colab}.",
        "nb_needs_torch": "torch {torch} с CUDA {cuda} — версия, с которой получены выводы; другая версия может "
                          "напечатать другие сообщения и показать другое время.",
        "nb_needs_packages": "Пакеты, которые импортирует код: {packages}. Следующая ячейка устанавливает "
                             "недостающие в тех версиях, с которыми получены выводы, и ничего не делает, если все "
                             "они уже установлены.",
        "nb_intro": "Этот блокнот — глава «{title}» руководства по torch.compile ({url}), собранная из страницы и её "
                    "файлов с примерами. Выводы под ячейками получены для руководства ({where}); запустите блокнот, "
                    "чтобы получить свои. Свёрнутые ячейки с тегом `setup` — части файлов с примерами, которых нет "
                    "на странице, но которые нужны следующим ячейкам.",
        "nb_multi_gpu": "Ячейкам `{file}` нужно GPU: {gpus}; файл запускается по процессу на GPU "
                        "(`torchrun --nproc-per-node={gpus} {file}`). Они показаны с выводом, полученным для "
                        "руководства, а при запуске блокнота пропускаются (тег `skip-execution`).",
        "nb_keep_names": "{file} продолжается ниже: сохраняем его имена, как сохранил бы его собственный процесс",
        "nb_restore_names": "снова {file}: его имена такими, какими их оставили его ячейки",
        "t_file": "Файл", "t_cells": "Ячейки", "t_time": "Время", "t_where": "Где получен", "t_date": "Дата",
        "untranslated": "Эта страница ещё не переведена на русский язык; перед вами английский оригинал.",
        "untranslated_part": "Часть этой страницы ещё не переведена и осталась на английском.",
        "outdated": "Этот перевод сделан с более ранней версии английской страницы. С тех пор изменилось: {changes}.",
        "status_page": "Страница", "up to date": "актуален", "outdated_state": "устарел", "missing": "нет перевода", "untranslated_state": "не переведено",
        "language_name": "русский",
        "ms": "{n} мс", "s": "{n} с", "min_s": "{m} мин {s} с", "permalink": "Постоянная ссылка", "list_sep": ", ", "read_english": "Читать английскую страницу.",
        "provenance": "Где и когда получен этот вывод: GPU · torch · CUDA · дата и время (UTC) · время выполнения ячейки · шли ли на машине одновременно другие файлы",
        "alone": "выполнялся один", "beside": "параллельно с другими файлами: {n}", "threads": "потоков компиляции Inductor: {n}", "claim": "Утверждение проверено по измеренным значениям: {holds}, где {values}", "claim_false": "Утверждение больше не верно для измеренных значений: {holds} ложно при {values}", "host_cpu": "процессор хоста: {cpu}", "not_found": "Страница не найдена", "not_found_home": "На главную страницу руководства", "copied": "Скопировано!", "copy": "Скопировать в буфер обмена", "english_original": "Эта страница — перевод; английский оригинал:", "english_link": "читать по-английски",
        "fold_earlier": "Показать предыдущие строки: {n} из {total}",
        "figure": "График, построенный ячейкой {cell} файла {file}",
        "raises_expected": "Исключение {ename}, как и задумано в примере",
        "raises_unexpected": "Непредвиденное исключение {ename}",
        "no_output": "(эта ячейка ничего не выводит)",
        "problem": "Проблема с выводом:",
        "decimal_sep": ",", "group_sep": "\u202f",
        "glued": "Измерено: значение из ячейки {cell} файла {file} · {where}",
        "quoted": "Цитата, здесь не измерялось: {source}",
    },
    "zh": {
        "nb_view": "笔记本", "nb_download": "下载笔记本", "nb_colab": "在 Colab 中打开",
        "nb_snippet": "仓库中的代码文件 {file}",
        "nb_title": "笔记本：{title}",
        "nb_provenance": "为本指南采集：{line}",
        "nb_needs": "运行本笔记本需要什么",
        "nb_needs_gpu": "一块支持 CUDA 的 GPU：这里展示的输出采集自 {gpu}。在 Colab 中，通过“代码执行程序 → "
                        "更改运行时类型”选择 GPU；Colab 打开本笔记本时已选好 GPU 类型 {colab}。",
        "nb_needs_torch": "torch {torch}（CUDA {cuda}），即采集输出时的版本；换成其他版本，打印的信息和时间可能不同。",
        "nb_needs_packages": "代码导入的包：{packages}。下一个单元按采集输出时的版本安装其中缺少的包；"
                             "如果都已安装，它什么也不做。",
        "nb_intro": "本笔记本是 torch.compile 指南的“{title}”一章（{url}），由该页面及其代码文件生成。单元下方的输出是"
                    "为本指南采集的输出（{where}）；运行笔记本即可得到你自己的输出。带 `setup` 标签的折叠单元是页面未展示、"
                    "但后续单元需要的代码文件片段。",
        "nb_multi_gpu": "`{file}` 的单元需要 {gpus} 块 GPU，每块 GPU 运行一个进程"
                        "（`torchrun --nproc-per-node={gpus} {file}`）。这些单元附带为本指南采集的输出，"
                        "运行本笔记本时会跳过它们（标签 `skip-execution`）。",
        "nb_keep_names": "{file} 在本笔记本后面还会继续：像它自己的进程一样保留它的变量",
        "nb_restore_names": "回到 {file}：恢复它自己的单元留下的变量",
        "t_file": "代码文件", "t_cells": "单元数", "t_time": "运行时间", "t_where": "采集环境", "t_date": "日期",
        "untranslated": "本页尚未翻译成中文，以下是英文原文。",
        "untranslated_part": "本页部分内容尚未翻译，仍为英文。",
        "outdated": "本译文基于英文页面的较早版本。此后有改动的部分：{changes}。",
        "status_page": "页面", "up to date": "最新", "outdated_state": "过时", "missing": "缺失", "untranslated_state": "未翻译",
        "language_name": "中文",
        "ms": "{n} ms", "s": "{n} s", "min_s": "{m} min {s} s", "permalink": "永久链接", "list_sep": "、", "read_english": "阅读英文页面。",
        "provenance": "此输出的采集位置与时间：GPU · torch · CUDA · 日期和时间（UTC）· 该单元的运行时间 · 采集时机器上是否同时运行其他文件",
        "alone": "单独运行", "beside": "与其他 {n} 个文件同时运行", "threads": "Inductor 编译线程：{n}", "claim": "此结论已对照采集的数值核对：{holds}，其中 {values}", "claim_false": "此结论与采集的数值不再相符：{holds} 不成立，其中 {values}", "host_cpu": "主机 CPU：{cpu}", "not_found": "页面不存在", "not_found_home": "返回指南首页", "copied": "已复制！", "copy": "复制到剪贴板", "english_original": "本页是译文；英文原文：", "english_link": "阅读英文原文",
        "fold_earlier": "显示前面的 {n} 行（共 {total} 行）",
        "figure": "由 {file} 的单元 {cell} 绘制的图表",
        "raises_expected": "抛出 {ename}，这正是本示例的意图",
        "raises_unexpected": "意外的 {ename}",
        "no_output": "（此单元没有输出）",
        "problem": "输出有问题：",
        "decimal_sep": ".", "group_sep": ",",
        "glued": "实测值：来自 {file} 的单元 {cell} · {where}",
        "quoted": "引用值，并非本指南实测：{source}",
    },
    "ko": {
        "nb_view": "노트북", "nb_download": "노트북 다운로드", "nb_colab": "Colab에서 열기",
        "nb_snippet": "저장소의 스니펫 파일 {file}",
        "nb_title": "노트북: {title}",
        "nb_provenance": "가이드용 캡처: {line}",
        "nb_needs": "이 노트북에 필요한 것",
        "nb_needs_gpu": "CUDA GPU: 여기 보이는 출력은 {gpu}에서 캡처했습니다. Colab에서는 \"런타임 → 런타임 유형 변경\"에서 "
                        "GPU를 고르세요. Colab은 이 노트북을 GPU 유형 {colab} 설정으로 엽니다.",
        "nb_needs_torch": "torch {torch}(CUDA {cuda}): 출력을 캡처한 버전입니다. 다른 버전에서는 메시지와 시간이 "
                          "다르게 나올 수 있습니다.",
        "nb_needs_packages": "코드가 가져오는 패키지: {packages}. 다음 셀은 이 가운데 없는 패키지를 출력을 캡처한 "
                             "버전으로 설치하며, 모두 설치되어 있으면 아무것도 하지 않습니다.",
        "nb_intro": "이 노트북은 torch.compile 가이드의 “{title}” 장({url})을 페이지와 스니펫 파일로 만든 것입니다. "
                    "셀 아래의 출력은 가이드를 위해 캡처한 것({where})이며, 노트북을 실행하면 직접 얻을 수 있습니다. "
                    "`setup` 태그가 붙은 접힌 셀은 페이지에는 없지만 뒤의 셀에 필요한 스니펫 파일의 부분입니다.",
        "nb_multi_gpu": "`{file}`의 셀은 GPU {gpus}개가 필요하며 GPU마다 프로세스 하나로 실행됩니다"
                        "(`torchrun --nproc-per-node={gpus} {file}`). 가이드를 위해 캡처한 출력과 함께 보여 주며, "
                        "노트북을 실행할 때는 건너뜁니다(태그 `skip-execution`).",
        "nb_keep_names": "{file} 파일은 이 노트북 뒤에서 이어집니다: 자기 프로세스에서처럼 이름을 보존합니다",
        "nb_restore_names": "다시 {file}: 자기 셀이 남긴 이름으로 되돌립니다",
        "t_file": "스니펫 파일", "t_cells": "셀 수", "t_time": "실행 시간", "t_where": "캡처 환경", "t_date": "날짜",
        "untranslated": "이 페이지는 아직 한국어로 번역되지 않았습니다. 영어 원문을 보고 계십니다.",
        "untranslated_part": "이 페이지는 일부가 아직 번역되지 않아 영어로 남아 있습니다.",
        "outdated": "이 번역은 영어 페이지의 이전 버전을 바탕으로 합니다. 이후 바뀐 부분: {changes}.",
        "status_page": "페이지", "up to date": "최신", "outdated_state": "오래됨", "missing": "없음", "untranslated_state": "미번역",
        "language_name": "한국어",
        "ms": "{n} ms", "s": "{n}초", "min_s": "{m}분 {s}초", "permalink": "고정 링크", "list_sep": ", ", "read_english": "영어 원문 보기",
        "provenance": "이 출력이 캡처된 곳과 시각: GPU · torch · CUDA · 날짜와 시각(UTC) · 셀 실행 시간 · 그동안 같은 머신에서 다른 파일이 실행되었는지",
        "alone": "단독 실행", "beside": "다른 파일 {n}개와 동시 실행", "threads": "Inductor 컴파일 스레드 {n}개", "claim": "캡처한 값으로 확인한 주장: {holds}, 값: {values}", "claim_false": "캡처한 값으로는 더 이상 성립하지 않는 주장: {holds}, 값: {values}", "host_cpu": "호스트 CPU: {cpu}", "not_found": "페이지를 찾을 수 없습니다", "not_found_home": "가이드 첫 페이지로", "copied": "복사했습니다!", "copy": "클립보드로 복사", "english_original": "이 페이지는 번역본입니다. 영어 원문:", "english_link": "영어 원문 보기",
        "fold_earlier": "앞의 {n}줄 보기 (전체 {total}줄)",
        "figure": "{file}의 셀 {cell}에서 그린 차트",
        "raises_expected": "{ename} 발생 — 이 예제가 의도한 동작입니다",
        "raises_unexpected": "예상하지 못한 {ename}",
        "no_output": "(이 셀은 아무것도 출력하지 않습니다)",
        "problem": "출력 문제:",
        "decimal_sep": ".", "group_sep": ",",
        "glued": "측정값: {file}의 셀 {cell}에서 가져온 값 · {where}",
        "quoted": "인용한 값이며 이 가이드에서 측정하지 않음: {source}",
    },
}

def label(lang: str, key: str) -> str:
    """The words for ``key`` in ``lang``; English for a language not given its words yet (a new one), except
    its name, which is then its code rather than "English"."""
    if lang not in LABELS and key == "language_name":
        return lang
    return LABELS.get(lang, LABELS[SOURCE]).get(key) or LABELS[SOURCE][key]
